#include "support/expectations.hpp"
#include "support/http_client.hpp"
#include "support/test_routes.hpp"
#include "support/test_server.hpp"

#include <gtest/gtest.h>

#include <string>

namespace {

using namespace stet::test;

std::string http10_get(std::string_view target, std::string_view extra_headers = {}) {
  std::string s = "GET ";
  s.append(target).append(" HTTP/1.0\r\n").append(extra_headers).append("\r\n");
  return s;
}

class Http10 : public ::testing::Test {
 protected:
  test_app app_;
  running_server server_{app_.routes()};
  raw_client client_{server_.port()};
};

TEST_F(Http10, ClosesAfterTheResponseByDefault) {
  // Host is optional in HTTP/1.0.
  ASSERT_TRUE(client_.send(http10_get("/plaintext")));
  const auto r = client_.read_response();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, hello_body);
  EXPECT_EQ(r->header("content-length"), "13");
  EXPECT_EQ(r->header("connection"), "close");
  EXPECT_TRUE(client_.wait_closed());
}

TEST_F(Http10, KeepAliveWhenAsked) {
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(client_.send(http10_get("/query?" + std::to_string(i), "Connection: keep-alive\r\n")));
    const auto r = client_.read_response();
    ASSERT_TRUE(r) << i;
    EXPECT_EQ(r->body, std::to_string(i));
    // An HTTP/1.0 client assumes close unless told otherwise.
    EXPECT_EQ(r->header("connection"), "keep-alive");
  }
  ASSERT_TRUE(client_.send(http10_get("/plaintext")));
  const auto last = client_.read_response();
  ASSERT_TRUE(last);
  EXPECT_EQ(last->header("connection"), "close");
  EXPECT_TRUE(client_.wait_closed());
}

TEST_F(Http10, KeepAliveTokenIsCaseInsensitive) {
  ASSERT_TRUE(client_.send(http10_get("/plaintext", "Connection: Keep-Alive\r\n")));
  const auto r = client_.read_response();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->header("connection"), "keep-alive");
  EXPECT_TRUE(client_.quiet_for(std::chrono::milliseconds(50)));
}

// Read by stet, not llhttp: a tab after the token still asks to keep the connection.
TEST_F(Http10, KeepAliveTokenFollowedByATab) {
  ASSERT_TRUE(client_.send(http10_get("/query?a", "Connection: keep-alive\t\r\n") + http10_get("/query?b")));
  const auto a = client_.read_response();
  const auto b = client_.read_response();
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a->header("connection"), "keep-alive");
  EXPECT_EQ(a->body, "a");
  EXPECT_EQ(b->body, "b");
  EXPECT_EQ(b->header("connection"), "close");
  EXPECT_TRUE(client_.wait_closed());
}

TEST_F(Http10, CloseWinsOverKeepAlive) {
  ASSERT_TRUE(client_.send(http10_get("/plaintext", "Connection: keep-alive, close\r\n") + http10_get("/query?never")));
  const auto r = client_.read_response();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->header("connection"), "close");
  EXPECT_TRUE(client_.wait_closed());
  EXPECT_EQ(app_.handled(), 1u);
}

TEST_F(Http10, PipelinedKeepAliveRequests) {
  ASSERT_TRUE(client_.send(http10_get("/query?a", "Connection: keep-alive\r\n") + http10_get("/query?b")));
  const auto a = client_.read_response();
  const auto b = client_.read_response();
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a->body, "a");
  EXPECT_EQ(b->body, "b");
  EXPECT_TRUE(client_.wait_closed());
}

TEST_F(Http10, ResponseVersionIsHttp11) {
  // RFC 9110 6.2: a server sends the highest minor version it conforms to.
  ASSERT_TRUE(client_.send(http10_get("/plaintext")));
  const std::string all = client_.read_until_close();
  EXPECT_EQ(all.substr(0, 9), "HTTP/1.1 ");
}

TEST_F(Http10, PostWithContentLength) {
  ASSERT_TRUE(client_.send("POST /echo HTTP/1.0\r\nContent-Length: 4\r\n\r\nbody"));
  const auto r = client_.read_response();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->body, "body");
}

TEST_F(Http10, HeadHasNoBody) {
  ASSERT_TRUE(client_.send("HEAD /plaintext HTTP/1.0\r\n\r\n"));
  const auto r = client_.read_response(true);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->header("content-length"), "13");
  EXPECT_TRUE(client_.wait_closed());
}

TEST_F(Http10, TransferEncodingIsRejected) {
  // RFC 9112 6.1: Transfer-Encoding in HTTP/1.0 means the framing is faulty.
  ASSERT_TRUE(client_.send("POST /echo HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n"));
  expect_error_then_close(client_, 400);
  EXPECT_EQ(app_.handled(), 0u);
}

}  // namespace
