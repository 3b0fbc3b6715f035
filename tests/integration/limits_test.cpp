// Every configurable request limit, just under and just over.

#include "support/expectations.hpp"
#include "support/http_client.hpp"
#include "support/test_routes.hpp"
#include "support/test_server.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>

namespace {

using namespace stet::test;

constexpr std::size_t small_header_limit = 2048;
constexpr std::size_t small_body_limit = 64 * 1024;

stet::server_options small_limits() {
  stet::server_options o = test_options();
  o.max_header_bytes = small_header_limit;
  o.max_header_count = 8;
  o.max_body_bytes = small_body_limit;
  return o;
}

/// A GET of /plaintext whose request line and header section, final CRLF
/// included, are exactly `size` bytes.
std::string head_of_size(std::size_t size) {
  const std::string start = "GET /plaintext HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pad: ";
  const std::size_t fixed = start.size() + 4;
  EXPECT_GT(size, fixed);
  return start + std::string(size - fixed, 'p') + "\r\n\r\n";
}

/// A GET with Host and then `count - 1` more fields: `count` fields in all.
std::string head_with_fields(std::size_t count) {
  std::string extra;
  for (std::size_t i = 1; i < count; ++i) extra += "X-Field-" + std::to_string(i) + ": v\r\n";
  return get_request("/plaintext", extra);
}

/// A GET whose request-target is exactly `size` bytes.
std::string target_of_size(std::size_t size) {
  const std::string path = "/plaintext?";
  return get_request(path + std::string(size - path.size(), 'q'));
}

std::string chunked_body_of_size(std::size_t size) {
  std::string body;
  for (std::size_t left = size; left > 0;) {
    const std::size_t n = std::min<std::size_t>(left, 10'000);
    body += chunk(pattern_bytes(n));
    left -= n;
  }
  return body + chunk("");
}

/// Sends `bytes` on a fresh connection and expects a 200.
void expect_accepted(std::uint16_t port, std::string_view bytes) {
  raw_client client(port);
  ASSERT_TRUE(client.send(bytes));
  const auto r = client.read_response();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200) << r->body;
}

/// Sends `bytes` one byte per write (the limit must hold however the input is cut).
void send_dribbled(raw_client& client, std::string_view bytes) {
  for (char c : bytes) {
    if (!client.send(std::string_view(&c, 1))) return;  // the server may have given up already
  }
}

class Limits : public ::testing::Test {
 protected:
  test_app app_;
  running_server server_{app_.routes(), small_limits()};
  std::uint16_t port() const { return server_.port(); }
};

TEST_F(Limits, HeadAtTheLimitIsAccepted) { expect_accepted(port(), head_of_size(small_header_limit)); }

TEST_F(Limits, HeadAtTheLimitIsAcceptedWhenDribbled) {
  raw_client client(port());
  send_dribbled(client, head_of_size(small_header_limit));
  const auto r = client.read_response();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
}

TEST_F(Limits, HeadOneByteOverTheLimitGets431) { expect_rejected(port(), head_of_size(small_header_limit + 1), 431); }

// The verdict must not depend on how TCP cuts the head: here once in one
// write, once with a pause before its last byte.
TEST_F(Limits, HeadOverTheLimitGets431HoweverItIsCut) {
  const std::string head = head_of_size(small_header_limit + 2);
  {
    SCOPED_TRACE("one write");
    expect_rejected(port(), head, 431);
  }
  {
    SCOPED_TRACE("last byte late");
    raw_client client(port());
    ASSERT_TRUE(client.send(std::string_view(head).substr(0, head.size() - 1)));
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    client.send(std::string_view(head).substr(head.size() - 1));
    expect_error_then_close(client, 431);
  }
}

TEST_F(Limits, HeadFarOverTheLimitGets431) { expect_rejected(port(), head_of_size(small_header_limit * 10), 431); }

TEST_F(Limits, HeadWithoutEndOverTheLimitGets431) {
  // The client never finishes the head; the limit must not wait for it.
  raw_client client(port());
  ASSERT_TRUE(client.send("GET /plaintext HTTP/1.1\r\nHost: a\r\nX-Pad: " + std::string(small_header_limit, 'p')));
  expect_error_then_close(client, 431);
}

TEST_F(Limits, FieldCountAtTheLimitIsAccepted) { expect_accepted(port(), head_with_fields(8)); }

TEST_F(Limits, FieldCountOverTheLimitGets431) { expect_rejected(port(), head_with_fields(9), 431); }

TEST_F(Limits, BodyAtTheLimitIsAccepted) {
  raw_client client(port());
  ASSERT_TRUE(client.send(post_request("/echo", pattern_bytes(small_body_limit))));
  const auto r = client.read_response();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body.size(), small_body_limit);
}

TEST_F(Limits, ContentLengthOverTheLimitGets413BeforeTheBody) {
  raw_client client(port());
  ASSERT_TRUE(client.send("POST /echo HTTP/1.1\r\nHost: a\r\nContent-Length: " + std::to_string(small_body_limit + 1) +
                          "\r\n\r\n"));
  expect_error_then_close(client, 413);
  EXPECT_EQ(app_.handled(), 0u);
}

TEST_F(Limits, ContentLengthOverTheLimitGets413WhenTheBodyIsSentAnyway) {
  // The unread body must not turn the close into a reset that eats the 413.
  expect_rejected(port(), post_request("/echo", pattern_bytes(small_body_limit * 4)), 413);
}

TEST_F(Limits, ChunkedBodyAtTheLimitIsAccepted) {
  raw_client client(port());
  ASSERT_TRUE(client.send(chunked_head("/echo") + chunked_body_of_size(small_body_limit)));
  const auto r = client.read_response();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body.size(), small_body_limit);
}

TEST_F(Limits, ChunkedBodyOverTheLimitGets413) {
  expect_rejected(port(), chunked_head("/echo") + chunked_body_of_size(small_body_limit + 1), 413);
  EXPECT_EQ(app_.handled(), 1u);  // only expect_rejected's own check
}

TEST_F(Limits, OneHugeChunkGets413) {
  raw_client client(port());
  ASSERT_TRUE(client.send(chunked_head("/echo") + "FFFFFFFF\r\n" + pattern_bytes(small_body_limit + 10)));
  expect_error_then_close(client, 413);
}

TEST_F(Limits, TrailerSectionCountsAgainstTheHeaderLimit) {
  const std::string trailer = "X-Trailer: " + std::string(small_header_limit + 1, 't') + "\r\n";
  expect_rejected(port(), chunked_head("/echo") + chunk("abc") + "0\r\n" + trailer + "\r\n", 431);
}

// RFC 9112 7.1.1: a server ought to limit the total length of chunk extensions
// and answer 4xx when it is exceeded; they count toward no other limit.
TEST_F(Limits, ChunkExtensionsAreBounded) {
  raw_client client(port());
  client.send(chunked_head("/echo") + "1;ext=" + std::string(small_body_limit * 4, 'e') + "\r\nx\r\n0\r\n\r\n");
  const auto r = client.read_response(false, std::chrono::seconds(2));
  ASSERT_TRUE(r);
  EXPECT_GE(r->status, 400);
  EXPECT_LT(r->status, 500);
}

TEST_F(Limits, LimitsApplyToEveryRequestOnAConnection) {
  raw_client client(port());
  ASSERT_TRUE(client.send(head_of_size(small_header_limit)));
  const auto ok = client.read_response();
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->status, 200);
  ASSERT_TRUE(client.send(head_of_size(small_header_limit + 100)));
  expect_error_then_close(client, 431);
}

// The defaults of the issue: 16 KiB head, 8 KiB target, 100 fields.
class DefaultLimits : public ::testing::Test {
 protected:
  test_app app_;
  running_server server_{app_.routes()};
  std::uint16_t port() const { return server_.port(); }
};

TEST_F(DefaultLimits, HeadOf16KiBIsAcceptedAndOneMoreByteGets431) {
  expect_accepted(port(), head_of_size(16 * 1024));
  expect_rejected(port(), head_of_size(16 * 1024 + 1), 431);
}

TEST_F(DefaultLimits, TargetOf8KiBIsAcceptedAndOneMoreByteGets414) {
  expect_accepted(port(), target_of_size(8 * 1024));
  expect_rejected(port(), target_of_size(8 * 1024 + 1), 414);
}

TEST_F(DefaultLimits, TargetLongerThanTheWholeHeadLimitGets414) {
  expect_rejected(port(), target_of_size(20 * 1024), 414);
}

TEST_F(DefaultLimits, HundredFieldsAreAcceptedAndOneMoreGets431) {
  expect_accepted(port(), head_with_fields(100));
  expect_rejected(port(), head_with_fields(101), 431);
}

TEST_F(DefaultLimits, BodyOf1MiBIsAcceptedAndOneMoreByteGets413) {
  raw_client client(port());
  ASSERT_TRUE(client.send(post_request("/echo", pattern_bytes(1024 * 1024))));
  const auto r = client.read_response();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  expect_rejected(port(), post_request("/echo", pattern_bytes(1024 * 1024 + 1)), 413);
}

}  // namespace
