#include <stet/stet.hpp>

#include "support/http_client.hpp"
#include "support/test_server.hpp"

#include <gtest/gtest.h>

namespace {

using stet::test::raw_client;
using stet::test::running_server;

stet::router hello_routes() {
  stet::router r;
  r.get("/plaintext", [](stet::request&) { return stet::response::text("Hello, World!"); });
  return r;
}

TEST(Basic, AnswersPlaintext) {
  running_server server(hello_routes());
  raw_client client(server.port());
  ASSERT_TRUE(client.connected());
  const auto r = client.request("GET", "/plaintext");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, "Hello, World!");
  EXPECT_EQ(r->header("content-length"), "13");
  EXPECT_EQ(r->header("server"), "stet");
  EXPECT_TRUE(r->header("date"));
}

}  // namespace
