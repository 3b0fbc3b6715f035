// stet::cors behind a real server: a preflight and the actual request on one
// keep-alive connection, as a browser sends them.
#include <stet/stet.hpp>

#include "support/http_client.hpp"
#include "support/test_server.hpp"

#include <gtest/gtest.h>

#include <string>

namespace {

using stet::test::raw_client;
using stet::test::running_server;

stet::router cors_routes() {
  stet::router routes;
  stet::cors_options o;
  o.origins = {"http://page.test:8000"};
  o.methods = {stet::method::put};
  o.allow_headers = {"Content-Type"};
  o.expose_headers = {"X-Count"};
  o.credentials = true;
  o.max_age = std::chrono::seconds(60);
  auto api = routes.group("/api");
  api.use(stet::cors(o));
  api.put("/items/{id:int}", [](stet::request& q, std::int64_t id) {
    return stet::response::json_text("{\"id\":" + std::to_string(id) + ",\"bytes\":" + std::to_string(q.body().size()) +
                                     "}")
        .with_header("X-Count", "1");
  });
  routes.get("/plain", [](stet::request&) { return stet::response::text("plain"); });
  return routes;
}

TEST(CorsWire, PreflightThenActualRequestOnOneConnection) {
  running_server server(cors_routes());
  raw_client client(server.port());
  const auto preflight = client.request("OPTIONS", "/api/items/3",
                                        "Origin: http://page.test:8000\r\n"
                                        "Access-Control-Request-Method: PUT\r\n"
                                        "Access-Control-Request-Headers: content-type\r\n");
  ASSERT_TRUE(preflight);
  EXPECT_EQ(preflight->status, 204);
  EXPECT_EQ(preflight->header("access-control-allow-origin"), "http://page.test:8000");
  EXPECT_EQ(preflight->header("access-control-allow-credentials"), "true");
  EXPECT_EQ(preflight->header("access-control-allow-methods"), "PUT");
  EXPECT_EQ(preflight->header("access-control-allow-headers"), "Content-Type");
  EXPECT_EQ(preflight->header("access-control-max-age"), "60");
  EXPECT_EQ(preflight->header("vary"), "Origin, Access-Control-Request-Method, Access-Control-Request-Headers");
  EXPECT_EQ(preflight->body, "");

  const auto put = client.request("PUT", "/api/items/3",
                                  "Origin: http://page.test:8000\r\n"
                                  "Content-Type: application/json\r\n",
                                  "{}");
  ASSERT_TRUE(put);
  EXPECT_EQ(put->status, 200);
  EXPECT_EQ(put->body, "{\"id\":3,\"bytes\":2}");
  EXPECT_EQ(put->header("access-control-allow-origin"), "http://page.test:8000");
  EXPECT_EQ(put->header("access-control-expose-headers"), "X-Count");
  EXPECT_EQ(put->header("vary"), "Origin");
}

TEST(CorsWire, RefusedOriginGetsNoCorsHeadersButTheAnswer) {
  running_server server(cors_routes());
  raw_client client(server.port());
  const auto preflight =
      client.request("OPTIONS", "/api/items/3", "Origin: http://evil.test\r\nAccess-Control-Request-Method: PUT\r\n");
  ASSERT_TRUE(preflight);
  EXPECT_EQ(preflight->status, 204);
  EXPECT_FALSE(preflight->header("access-control-allow-origin"));
  EXPECT_FALSE(preflight->header("access-control-allow-methods"));
  const auto put = client.request("PUT", "/api/items/4", "Origin: http://evil.test\r\nContent-Length: 0\r\n");
  ASSERT_TRUE(put);
  EXPECT_EQ(put->status, 200);
  EXPECT_FALSE(put->header("access-control-allow-origin"));
  EXPECT_EQ(put->header("vary"), "Origin");
}

TEST(CorsWire, UncoveredRouteKeepsTheRoutersOptions) {
  running_server server(cors_routes());
  raw_client client(server.port());
  const auto options =
      client.request("OPTIONS", "/plain", "Origin: http://page.test:8000\r\nAccess-Control-Request-Method: GET\r\n");
  ASSERT_TRUE(options);
  EXPECT_EQ(options->status, 204);
  EXPECT_EQ(options->header("allow"), "GET, HEAD, OPTIONS");
  EXPECT_FALSE(options->header("access-control-allow-origin"));
  EXPECT_FALSE(options->header("vary"));
}

}  // namespace
