// The router behind a real server: raw bytes in, exact answers out.
#include <stet/stet.hpp>

#include "support/http_client.hpp"
#include "support/test_server.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

namespace {

using stet::request;
using stet::response;
using stet::test::raw_client;
using stet::test::running_server;

stet::router api_routes() {
  stet::router r;
  r.get("/users/{id:int}",
        [](request&, std::int64_t id) { return response::json_text("{\"id\":" + std::to_string(id) + "}"); });
  r.post("/upload/{name}", [](request& q, std::string_view name) {
    return response::text(std::string(name) + ":" + std::to_string(q.body().size()));
  });
  return r;
}

TEST(RouterWire, TypedRouteAnswersAndNonIntegerIs404) {
  running_server server(api_routes());
  raw_client client(server.port());
  const auto ok = client.request("GET", "/users/42");
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->status, 200);
  EXPECT_EQ(ok->body, "{\"id\":42}");
  EXPECT_EQ(ok->header("content-type"), "application/json");
  const auto bad = client.request("GET", "/users/abc");
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->status, 404);
  const auto overflow = client.request("GET", "/users/99999999999999999999");
  ASSERT_TRUE(overflow);
  EXPECT_EQ(overflow->status, 404);
}

TEST(RouterWire, HeadKeepsContentLengthWithoutABody) {
  running_server server(api_routes());
  raw_client client(server.port());
  const auto head = client.request("HEAD", "/users/7");
  ASSERT_TRUE(head);
  EXPECT_EQ(head->status, 200);
  EXPECT_EQ(head->header("content-length"), "8");
  EXPECT_EQ(head->body, "");
  // The connection is still in sync: the next answer is whole.
  const auto next = client.request("GET", "/users/8");
  ASSERT_TRUE(next);
  EXPECT_EQ(next->body, "{\"id\":8}");
}

TEST(RouterWire, MethodNotAllowedOptionsAndSlashRedirect) {
  running_server server(api_routes());
  raw_client client(server.port());
  const auto wrong = client.request("DELETE", "/users/7");
  ASSERT_TRUE(wrong);
  EXPECT_EQ(wrong->status, 405);
  EXPECT_EQ(wrong->header("allow"), "GET, HEAD, OPTIONS");
  const auto options = client.request("OPTIONS", "/users/7");
  ASSERT_TRUE(options);
  EXPECT_EQ(options->status, 204);
  EXPECT_EQ(options->header("allow"), "GET, HEAD, OPTIONS");
  const auto slash = client.request("GET", "/users/7/?a=b%20c");
  ASSERT_TRUE(slash);
  EXPECT_EQ(slash->status, 301);
  EXPECT_EQ(slash->header("location"), "/users/7?a=b%20c");
}

// Expect: 100-continue is decided by router::find() before the body is read.
TEST(RouterWire, ExpectContinueOnlyForRoutedRequests) {
  running_server server(api_routes());
  raw_client client(server.port());
  ASSERT_TRUE(client.send("POST /upload/a HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nExpect: 100-continue\r\n\r\n"));
  const auto interim = client.read_response();
  ASSERT_TRUE(interim);
  EXPECT_EQ(interim->status, 100);
  ASSERT_TRUE(client.send("abc"));
  const auto done = client.read_response();
  ASSERT_TRUE(done);
  EXPECT_EQ(done->body, "a:3");

  raw_client other(server.port());
  ASSERT_TRUE(other.send("POST /nowhere HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nExpect: 100-continue\r\n\r\n"));
  const auto refused = other.read_response();
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->status, 404);
}

// The server holds a copy of the router; adding to ours swaps a new table in
// under the running workers.
TEST(RouterWire, RoutesAddedAfterStartAreServed) {
  stet::router routes = api_routes();
  running_server server(routes);
  raw_client client(server.port());
  const auto before = client.request("GET", "/late");
  ASSERT_TRUE(before);
  EXPECT_EQ(before->status, 404);
  routes.get("/late", [](request&) { return response::text("here now"); });
  const auto after = client.request("GET", "/late");
  ASSERT_TRUE(after);
  EXPECT_EQ(after->status, 200);
  EXPECT_EQ(after->body, "here now");
}

}  // namespace
