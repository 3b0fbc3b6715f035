#include "support/expectations.hpp"
#include "support/http_client.hpp"
#include "support/test_routes.hpp"
#include "support/test_server.hpp"

#include <gtest/gtest.h>

#include <string>

namespace {

using namespace stet::test;

/// `count` GETs of /query?<tag>-<i>, all in one string.
std::string batch(int count, std::string_view tag = "r") {
  std::string bytes;
  for (int i = 0; i < count; ++i) bytes += get_request("/query?" + std::string(tag) + "-" + std::to_string(i));
  return bytes;
}

/// Reads `count` responses and checks they answer batch(count, tag) in order.
void expect_batch_answered(raw_client& client, int count, std::string_view tag = "r") {
  for (int i = 0; i < count; ++i) {
    const auto r = client.read_response();
    ASSERT_TRUE(r) << "response " << i;
    ASSERT_EQ(r->status, 200);
    ASSERT_EQ(r->body, std::string(tag) + "-" + std::to_string(i));
  }
}

TEST(Pipelining, SixtyFourRequestsInOneWriteAnsweredInOrder) {
  test_app app;
  running_server server(app.routes());
  raw_client client(server.port());
  ASSERT_TRUE(client.send(batch(64)));
  expect_batch_answered(client, 64);
  EXPECT_TRUE(client.quiet_for(std::chrono::milliseconds(50)));
}

TEST(Pipelining, ResponsesToOneBatchAreCoalesced) {
  test_app app;
  running_server server(app.routes());
  raw_client client(server.port());
  // Warm up, so the batch meets a connection with its buffers already grown.
  ASSERT_TRUE(client.request("GET", "/plaintext"));
  ASSERT_TRUE(client.send(batch(32)));
  // One write of the whole batch reaches the client as one segment on loopback,
  // so a single recv() sees all 32 responses.
  std::string first = client.read_once();
  std::size_t consumed = 0;
  int complete = 0;
  for (std::string_view rest = first; parse_response(rest, &consumed); rest.remove_prefix(consumed)) ++complete;
  EXPECT_EQ(complete, 32);
}

TEST(Pipelining, BatchesSplitAtAnyByteAreAnsweredInOrder) {
  test_app app;
  running_server server(app.routes());
  raw_client client(server.port());
  const std::string bytes = batch(16);
  // Cut through request lines, header names and the CRLFs between requests.
  for (std::size_t at = 0; at < bytes.size(); at += 37) {
    ASSERT_TRUE(client.send(std::string_view(bytes).substr(at, 37)));
  }
  expect_batch_answered(client, 16);
}

TEST(Pipelining, MixedMethodsAndBodiesAnsweredInOrder) {
  test_app app;
  running_server server(app.routes());
  raw_client client(server.port());
  const std::string bytes = post_request("/echo", "first") + get_request("/query?second") + chunked_head("/echo") +
                            chunk("thi") + chunk("rd") + chunk("") + "HEAD /plaintext HTTP/1.1\r\nHost: a\r\n\r\n" +
                            post_request("/echo", "fifth");
  ASSERT_TRUE(client.send(bytes));
  for (const char* expected : {"first", "second", "third"}) {
    const auto r = client.read_response();
    ASSERT_TRUE(r);
    EXPECT_EQ(r->body, expected);
  }
  const auto head = client.read_response(true);
  ASSERT_TRUE(head);
  EXPECT_EQ(head->header("content-length"), "13");
  const auto last = client.read_response();
  ASSERT_TRUE(last);
  EXPECT_EQ(last->body, "fifth");
}

TEST(Pipelining, LargeResponsesBehindEachOtherAllArrive) {
  test_app app;
  running_server server(app.routes());
  raw_client client(server.port());
  // 64 x 64 KiB is far more than the engine buffers before it pauses parsing;
  // the rest must be parsed and answered as the client drains the socket.
  std::string bytes;
  for (int i = 0; i < 64; ++i) bytes += get_request("/bytes?65536");
  ASSERT_TRUE(client.send(bytes));
  const std::string expected = pattern_bytes(65536);
  for (int i = 0; i < 64; ++i) {
    const auto r = client.read_response();
    ASSERT_TRUE(r) << "response " << i;
    ASSERT_TRUE(r->body == expected) << "response " << i;
  }
  EXPECT_EQ(app.handled(), 64u);
}

TEST(Pipelining, SecondBatchAfterFirstIsAnswered) {
  test_app app;
  running_server server(app.routes());
  raw_client client(server.port());
  ASSERT_TRUE(client.send(batch(10, "a")));
  expect_batch_answered(client, 10, "a");
  ASSERT_TRUE(client.send(batch(10, "b")));
  expect_batch_answered(client, 10, "b");
}

TEST(Pipelining, CloseInTheMiddleDropsTheRest) {
  test_app app;
  running_server server(app.routes());
  raw_client client(server.port());
  ASSERT_TRUE(client.send(batch(3) + get_request("/query?last", "Connection: close\r\n") + batch(3, "never")));
  expect_batch_answered(client, 3);
  const auto last = client.read_response();
  ASSERT_TRUE(last);
  EXPECT_EQ(last->body, "last");
  EXPECT_EQ(last->header("connection"), "close");
  EXPECT_TRUE(client.wait_closed());
  EXPECT_EQ(app.handled(), 4u);
}

}  // namespace
