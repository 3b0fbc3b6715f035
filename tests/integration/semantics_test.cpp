// Method and target semantics the engine and router answer by themselves:
// HEAD, OPTIONS, 404/405, absolute-form targets.

#include "support/expectations.hpp"
#include "support/http_client.hpp"
#include "support/test_routes.hpp"
#include "support/test_server.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <regex>
#include <stdexcept>
#include <string_view>

namespace {

using namespace stet::test;

class Semantics : public ::testing::Test {
 protected:
  /// The test app plus handlers that throw, answer 204/304 with a body, or ask to close.
  stet::router routes() {
    stet::router r = app_.routes();
    r.get("/throws", [](stet::request&) -> stet::response { throw std::runtime_error("handler failure"); });
    r.get("/no-content", [](stet::request&) { return stet::response::text("dropped", stet::status::no_content); });
    r.get("/not-modified", [](stet::request&) { return stet::response::text("dropped", stet::status::not_modified); });
    r.get("/closes", [](stet::request&) { return stet::response::text("bye").close_connection(); });
    r.on_error([this](std::string_view) { ++errors_; });
    return r;
  }

  test_app app_;
  std::atomic<int> errors_{0};
  running_server server_{routes()};
  raw_client client_{server_.port()};
};

TEST_F(Semantics, HeadHasContentLengthButNoBody) {
  // A GET pipelined behind the HEAD is parsed right after the HEAD's head:
  // any body bytes sent for the HEAD would corrupt it.
  ASSERT_TRUE(client_.send("HEAD /plaintext HTTP/1.1\r\nHost: a\r\n\r\n" + get_request("/query?after")));
  const auto head = client_.read_response(true);
  ASSERT_TRUE(head);
  EXPECT_EQ(head->status, 200);
  EXPECT_EQ(head->header("content-length"), "13");
  EXPECT_EQ(head->header("content-type"), "text/plain; charset=utf-8");
  const auto get = client_.read_response();
  ASSERT_TRUE(get);
  EXPECT_EQ(get->status, 200);
  EXPECT_EQ(get->body, "after");
}

TEST_F(Semantics, HeadOfLargeBodySendsNoBody) {
  ASSERT_TRUE(client_.send("HEAD /bytes?100000 HTTP/1.1\r\nHost: a\r\n\r\n" + get_request("/plaintext")));
  const auto head = client_.read_response(true);
  ASSERT_TRUE(head);
  EXPECT_EQ(head->header("content-length"), "100000");
  const auto get = client_.read_response();
  ASSERT_TRUE(get);
  EXPECT_EQ(get->body, hello_body);
}

TEST_F(Semantics, OptionsIsAnsweredWithAllow) {
  const auto r = client_.request("OPTIONS", "/plaintext");
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->status == 200 || r->status == 204) << r->status;
  EXPECT_EQ(r->header("allow"), "GET, HEAD, OPTIONS");
  EXPECT_EQ(app_.handled(), 0u);
}

// RFC 9110 9.3.7: OPTIONS * asks about the server in general, not a resource,
// so "no such resource" is the wrong answer.
TEST_F(Semantics, OptionsAsteriskAppliesToTheServer) {
  const auto r = client_.request("OPTIONS", "*");
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->status == 200 || r->status == 204) << r->status;
}

TEST_F(Semantics, UnknownPathIs404AndKeepsTheConnection) {
  const auto r = client_.request("GET", "/nowhere");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 404);
  EXPECT_FALSE(r->header("connection"));
  const auto again = client_.request("GET", "/plaintext");
  ASSERT_TRUE(again);
  EXPECT_EQ(again->status, 200);
}

TEST_F(Semantics, WrongMethodIs405WithAllow) {
  const auto r = client_.request("DELETE", "/plaintext");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 405);
  EXPECT_EQ(r->header("allow"), "GET, HEAD, OPTIONS");
  const auto post = client_.request("GET", "/echo");
  ASSERT_TRUE(post);
  EXPECT_EQ(post->status, 405);
  EXPECT_EQ(post->header("allow"), "POST, OPTIONS");
}

TEST_F(Semantics, AbsoluteFormTargetIsRoutedByItsPath) {
  ASSERT_TRUE(client_.send("GET http://example.com/plaintext HTTP/1.1\r\nHost: example.com\r\n\r\n"));
  const auto r = client_.read_response();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, hello_body);
}

TEST_F(Semantics, AbsoluteFormAuthorityReplacesHost) {
  // RFC 9112 3.2.2: the target's authority wins over the Host field.
  ASSERT_TRUE(client_.send("GET HTTP://Example.COM:8080/host?x=1 HTTP/1.1\r\nHost: other.test\r\n\r\n"));
  const auto r = client_.read_response();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, "Example.COM:8080");
}

TEST_F(Semantics, PercentEncodedPathIsDecodedForRouting) {
  const auto r = client_.request("GET", "/plain%74ext");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
}

TEST_F(Semantics, EmptyLinesBeforeARequestAreIgnored) {
  // RFC 9112 2.2: a server SHOULD ignore at least one empty line before the request-line.
  ASSERT_TRUE(client_.send("\r\n" + get_request("/plaintext")));
  const auto r = client_.read_response();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
}

TEST_F(Semantics, HandlerThatThrowsGets500AndTheServerGoesOn) {
  const auto r = client_.request("GET", "/throws");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 500);
  EXPECT_EQ(errors_.load(), 1);
  expect_still_serving(server_.port());
}

TEST_F(Semantics, BodilessStatusesSendNeitherBodyNorContentLength) {
  // RFC 9110 6.4.1: 204 and 304 responses end at their header section.
  ASSERT_TRUE(client_.send(get_request("/no-content") + get_request("/not-modified") + get_request("/query?after")));
  for (int expected : {204, 304}) {
    const auto r = client_.read_response();
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, expected);
    EXPECT_FALSE(r->header("content-length")) << expected;
  }
  const auto after = client_.read_response();
  ASSERT_TRUE(after);
  EXPECT_EQ(after->body, "after");
}

TEST_F(Semantics, HandlerCanAskToClose) {
  ASSERT_TRUE(client_.send(get_request("/closes") + get_request("/plaintext")));
  const auto r = client_.read_response();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->body, "bye");
  EXPECT_EQ(r->header("connection"), "close");
  EXPECT_TRUE(client_.wait_closed());
  EXPECT_EQ(app_.handled(), 0u);
}

TEST_F(Semantics, DateIsAnImfFixdate) {
  const auto r = client_.request("GET", "/plaintext");
  ASSERT_TRUE(r);
  const std::regex imf_fixdate(
      R"((Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d\d (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d\d:\d\d:\d\d GMT)");
  EXPECT_TRUE(std::regex_match(r->header("date").value_or(""), imf_fixdate)) << r->header("date").value_or("");
}

TEST_F(Semantics, ConnectIsRefusedAndClosed) {
  ASSERT_TRUE(client_.send("CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n"));
  expect_error_then_close(client_, 501);
}

}  // namespace
