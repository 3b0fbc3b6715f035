// Request bodies (Content-Length and chunked) and Expect: 100-continue.

#include "support/expectations.hpp"
#include "support/http_client.hpp"
#include "support/test_routes.hpp"
#include "support/test_server.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <optional>
#include <string>

namespace {

using namespace std::chrono_literals;
using namespace stet::test;

class Body : public ::testing::Test {
 protected:
  static stet::server_options options() {
    stet::server_options o = test_options();
    o.max_body_bytes = 4 * 1024 * 1024;
    return o;
  }

  /// Reads the next response and expects 200 with `body`.
  void expect_echo(std::string_view body) {
    const auto r = client_.read_response();
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 200);
    EXPECT_EQ(r->body.size(), body.size());
    EXPECT_TRUE(r->body == body);
  }

  /// The connection still serves a plain GET.
  void expect_echo_after_get() {
    ASSERT_TRUE(client_.send(get_request("/plaintext")));
    expect_echo(hello_body);
  }

  test_app app_;
  running_server server_{app_.routes(), options()};
  raw_client client_{server_.port()};
};

TEST_F(Body, ContentLengthBodyIsEchoed) {
  ASSERT_TRUE(client_.send(post_request("/echo", "hello body")));
  expect_echo("hello body");
}

TEST_F(Body, EmptyContentLengthBody) {
  ASSERT_TRUE(client_.send(post_request("/echo", "")));
  expect_echo("");
}

TEST_F(Body, BodySentByteByByte) {
  const std::string request = post_request("/echo", "dribbled body");
  for (char c : request) ASSERT_TRUE(client_.send(std::string_view(&c, 1)));
  expect_echo("dribbled body");
}

TEST_F(Body, LargeContentLengthBodyInPieces) {
  const std::string body = pattern_bytes(3 * 1024 * 1024 + 17);
  const std::string request = post_request("/echo", body);
  for (std::size_t at = 0; at < request.size(); at += 100'000) {
    ASSERT_TRUE(client_.send(std::string_view(request).substr(at, 100'000)));
  }
  expect_echo(body);
}

TEST_F(Body, ChunkedBodyIsDechunked) {
  ASSERT_TRUE(client_.send(chunked_head("/echo") + chunk("Hello, ") + chunk("chunked") + chunk(" world") + chunk("")));
  expect_echo("Hello, chunked world");
}

TEST_F(Body, ChunkedBodyWithExtensionsAndTrailers) {
  ASSERT_TRUE(client_.send(chunked_head("/echo") + "5;name=value\r\nhello\r\n0\r\nX-Trailer: yes\r\n\r\n"));
  expect_echo("hello");
  expect_echo_after_get();
}

// RFC 9112 7.1.1 allows any number of `;name[=value]`, a value being a token
// or a quoted-string; llhttp 8.1 refused a token value followed by another one.
TEST_F(Body, ChunkExtensionsOfRfc9112) {
  for (const char* ext : {";a=b;c=d", ";a=b;c", ";a;b=c;d", ";a=\"x;y\";b=c;d=\"\"", ";n=1;n=2;n=3;n=4"}) {
    SCOPED_TRACE(ext);
    ASSERT_TRUE(client_.send(chunked_head("/echo") + "5" + ext + "\r\nhello\r\n1" + ext + "\r\n!\r\n0" + ext +
                             "\r\nX-Trailer: yes\r\n\r\n"));
    expect_echo("hello!");
  }
  expect_echo_after_get();
}

// RFC 9112 7.1.1: a quoted-string value may hold quoted-pairs; llhttp 8.1
// refuses the backslash, so stet reads quoted values itself (400 before).
TEST_F(Body, ChunkExtensionWithAQuotedPair) {
  ASSERT_TRUE(client_.send(chunked_head("/echo") + "5;a=\"b \\\"c\\\"\"\r\nhello\r\n1;q=\"\\\\\";r\r\n!\r\n0\r\n\r\n"));
  expect_echo("hello!");
  const std::string dribbled = chunked_head("/echo") + "3;a=\"x\\\";y\";b=c\r\nabc\r\n0\r\n\r\n";
  for (char c : dribbled) ASSERT_TRUE(client_.send(std::string_view(&c, 1)));
  expect_echo("abc");
  expect_echo_after_get();
}

TEST_F(Body, ChunkExtensionsSentByteByByte) {
  const std::string request = chunked_head("/echo") + "3;a=b;c=\"d\";e\r\nabc\r\n0;f=g;h\r\n\r\n";
  for (char c : request) ASSERT_TRUE(client_.send(std::string_view(&c, 1)));
  expect_echo("abc");
  expect_echo_after_get();
}

TEST_F(Body, ChunkSizesAreHexAndCaseInsensitive) {
  const std::string data = pattern_bytes(0x1aB);
  ASSERT_TRUE(client_.send(chunked_head("/echo") + "1aB\r\n" + data + "\r\n0\r\n\r\n"));
  expect_echo(data);
}

TEST_F(Body, ChunkedBodySentByteByByte) {
  const std::string request = chunked_head("/echo") + chunk("ab") + chunk("cde") + chunk("");
  for (char c : request) ASSERT_TRUE(client_.send(std::string_view(&c, 1)));
  expect_echo("abcde");
}

TEST_F(Body, LargeChunkedBody) {
  const std::string body = pattern_bytes(2 * 1024 * 1024);
  std::string request = chunked_head("/echo");
  for (std::size_t at = 0; at < body.size(); at += 40'000) request += chunk(std::string_view(body).substr(at, 40'000));
  request += chunk("");
  ASSERT_TRUE(client_.send(request));
  expect_echo(body);
}

TEST_F(Body, BodiesOnOneConnectionDoNotLeakIntoEachOther) {
  ASSERT_TRUE(client_.send(post_request("/echo", "long first body")));
  expect_echo("long first body");
  ASSERT_TRUE(client_.send(post_request("/echo", "2nd")));
  expect_echo("2nd");
  ASSERT_TRUE(client_.send(chunked_head("/echo") + chunk("3")));
  ASSERT_TRUE(client_.send(chunk("")));
  expect_echo("3");
  ASSERT_TRUE(client_.send(post_request("/echo", "")));
  expect_echo("");
}

// Expect: 100-continue (RFC 9110 10.1.1).
class ExpectContinue : public Body {
 protected:
  /// A POST head with Content-Length `length` and Expect: 100-continue; no body.
  static std::string head(std::string_view target, std::size_t length, std::string_view extra_headers = {},
                          std::string_view version = "HTTP/1.1") {
    std::string s = "POST ";
    s.append(target).append(" ").append(version).append("\r\nHost: 127.0.0.1\r\nContent-Length: ");
    s.append(std::to_string(length)).append("\r\nExpect: 100-continue\r\n").append(extra_headers).append("\r\n");
    return s;
  }

  static void expect_continue(raw_client& client) {
    const auto interim = client.read_response(false, 2s);
    ASSERT_TRUE(interim) << "no 100 Continue";
    EXPECT_EQ(interim->status, 100);
  }

  /// The next response that is not a 100 (which a server may or may not send).
  static std::optional<http_response> final_response(raw_client& client) {
    auto r = client.read_response(false, 2s);
    if (r && r->status == 100) r = client.read_response(false, 2s);
    return r;
  }
};

TEST_F(ExpectContinue, IsSentBeforeTheBodyIsRead) {
  ASSERT_TRUE(client_.send(head("/echo", 5)));
  expect_continue(client_);
  ASSERT_TRUE(client_.send("hello"));
  expect_echo("hello");
  expect_echo_after_get();
}

TEST_F(ExpectContinue, ForAChunkedBody) {
  ASSERT_TRUE(client_.send(chunked_head("/echo", "Expect: 100-continue\r\n")));
  expect_continue(client_);
  ASSERT_TRUE(client_.send(chunk("abc") + chunk("")));
  expect_echo("abc");
}

TEST_F(ExpectContinue, TokenIsCaseInsensitive) {
  ASSERT_TRUE(client_.send("POST /echo HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\nExpect: 100-Continue\r\n\r\n"));
  expect_continue(client_);
  ASSERT_TRUE(client_.send("ok"));
  expect_echo("ok");
}

TEST_F(ExpectContinue, BodyAlreadySentGetsOneFinalAnswer) {
  // A server MAY omit the 100 once the content is there.
  ASSERT_TRUE(client_.send(head("/echo", 4) + "body"));
  const auto r = final_response(client_);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, "body");
  EXPECT_TRUE(client_.quiet_for(50ms));
}

// The 100 is decided from the head alone, before the body is read; the request
// must still be intact when the handler runs, however the read buffer had to
// grow or move in between.
TEST_F(ExpectContinue, LargeHeadStaysIntact) {
  for (std::size_t pad : {100u, 6000u, 7000u, 12000u}) {
    SCOPED_TRACE(pad);
    raw_client client(server_.port());
    const std::string value = pattern_bytes(pad);
    ASSERT_TRUE(client.send(head("/header?X-Pad", 3, "X-Pad: " + value + "\r\n")));
    expect_continue(client);
    ASSERT_TRUE(client.send("abc"));
    const auto r = client.read_response(false, 2s);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 200);
    EXPECT_TRUE(r->body == value) << r->body.substr(0, 40);
  }
}

TEST_F(ExpectContinue, HeadBehindPipelinedRequestsStaysIntact) {
  // Earlier requests in the same read put the 100-continue head near the end
  // of the buffer, so making room for its body moves the head to the front.
  std::string bytes;
  for (int i = 0; i < 20; ++i) bytes += get_request("/query?" + std::to_string(i));
  const std::string value = pattern_bytes(5500);
  ASSERT_TRUE(client_.send(bytes + head("/header?X-Pad", 3, "X-Pad: " + value + "\r\n")));
  for (int i = 0; i < 20; ++i) expect_echo(std::to_string(i));
  expect_continue(client_);
  ASSERT_TRUE(client_.send("abc"));
  expect_echo(value);
}

// With no content to wait for, the request is complete with its head: the
// final response must come without the client sending anything more.
TEST_F(ExpectContinue, WithoutBodyIsAnswered) {
  ASSERT_TRUE(client_.send(get_request("/plaintext", "Expect: 100-continue\r\n")));
  const auto r = final_response(client_);
  ASSERT_TRUE(r) << "no final response to a body-less request with Expect: 100-continue";
  EXPECT_EQ(r->status, 200);
}

TEST_F(ExpectContinue, WithZeroContentLengthIsAnswered) {
  ASSERT_TRUE(client_.send(head("/echo", 0)));
  const auto r = final_response(client_);
  ASSERT_TRUE(r) << "no final response to Content-Length: 0 with Expect: 100-continue";
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, "");
}

// When the body will not be read: answer at once, without 100, and close (the
// client may send the body anyway).
TEST_F(ExpectContinue, UnknownPathGets404Instead) {
  ASSERT_TRUE(client_.send(head("/nowhere", 10)));
  expect_error_then_close(client_, 404);
  EXPECT_EQ(app_.handled(), 0u);
}

TEST_F(ExpectContinue, WrongMethodGets405Instead) {
  ASSERT_TRUE(client_.send(head("/plaintext", 10)));
  const auto r = client_.read_response(false, 2s);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 405);
  EXPECT_EQ(r->header("allow"), "GET, HEAD, OPTIONS");
  EXPECT_EQ(r->header("connection"), "close");
  EXPECT_TRUE(client_.wait_closed(2s));
}

TEST_F(ExpectContinue, TooLargeBodyGets413Instead) {
  ASSERT_TRUE(client_.send(head("/echo", options().max_body_bytes + 1)));
  expect_error_then_close(client_, 413);
}

TEST_F(ExpectContinue, UnknownPathWithBodyAlreadySentIsAnswered) {
  // Whether the engine reads the body that came with the head or closes after
  // the 404, the 404 must not be destroyed by a reset caused by unread input.
  ASSERT_TRUE(client_.send(head("/nowhere", 200'000) + pattern_bytes(200'000)));
  const auto r = final_response(client_);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 404);
  if (!r->header("connection")) expect_echo_after_get();
}

TEST_F(ExpectContinue, OtherExpectationsGet417) {
  ASSERT_TRUE(client_.send(get_request("/plaintext", "Expect: the-unexpected\r\n")));
  expect_error_then_close(client_, 417);
  expect_still_serving(server_.port());
}

TEST_F(ExpectContinue, IsIgnoredInHttp10) {
  // RFC 9110 10.1.1: a server MUST ignore 100-continue in an HTTP/1.0 request.
  ASSERT_TRUE(client_.send(head("/echo", 5, {}, "HTTP/1.0")));
  EXPECT_TRUE(client_.quiet_for(200ms)) << "something was sent before the body";
  ASSERT_TRUE(client_.send("hello"));
  expect_echo("hello");
}

}  // namespace
