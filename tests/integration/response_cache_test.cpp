// The response cache over sockets: single flight across workers (100 clients
// on a cold key, one handler run, the same bytes for all), hits that the
// route's handler-time histogram does not count, Age, and a coded variant
// that the connection does not code a second time.
#include <stet/response_cache.hpp>

#include "support/codecs.hpp"
#include "support/http_client.hpp"
#include "support/metric_value.hpp"
#include "support/test_routes.hpp"
#include "support/test_server.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

namespace {

using namespace std::chrono_literals;
using namespace stet::test;

TEST(ResponseCacheWire, SingleFlightOneRunForAHundredClients) {
  auto cache = std::make_shared<stet::response_cache>();
  std::atomic<int> runs{0};
  stet::router routes;
  routes.get("/cold", cache->route("cold", {}), [&runs](stet::request&) {
    const int n = ++runs;
    std::this_thread::sleep_for(300ms);  // long enough for every client to arrive during the run
    return stet::response::json_text(compressible_text(30'000) + std::to_string(n));
  });
  // The clients connect first and wait for each other: under TSan on a busy
  // machine that can take longer than test_options()' 2 s to the first byte.
  stet::server_options options = test_options();
  options.first_byte_timeout = 20s;
  options.idle_timeout = 20s;
  running_server server(std::move(routes), options);
  constexpr int clients = 100;
  std::mutex mutex;
  std::multiset<std::string> bodies;
  std::atomic<int> ok{0};
  std::atomic<int> connected{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < clients; ++i) {
    threads.emplace_back([&] {
      raw_client c(server.port());
      ++connected;
      while (connected.load() < clients) std::this_thread::sleep_for(1ms);
      const std::optional<http_response> r = c.request("GET", "/cold");
      if (!r || r->status != 200) return;
      ++ok;
      const std::lock_guard lock(mutex);
      bodies.insert(r->body);
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(ok, clients);
  EXPECT_EQ(runs, 1);
  ASSERT_FALSE(bodies.empty());
  EXPECT_EQ(bodies.count(*bodies.begin()), static_cast<std::size_t>(clients));
  const stet::response_cache_stats s = cache->stats();
  EXPECT_EQ(s.misses, 1u);
  EXPECT_EQ(s.hits + s.waits + s.misses, static_cast<std::uint64_t>(clients));
}

TEST(ResponseCacheWire, HitsRunNoHandlerAndCarryAge) {
  auto cache = std::make_shared<stet::response_cache>();
  stet::router routes;
  routes.get("/m", cache->route("m", {}), [](stet::request&) { return stet::response::text("cached"); });
  stet::server_options options = test_options();
  options.metrics = std::make_shared<stet::metrics>();
  const std::shared_ptr<stet::metrics> m = options.metrics;
  stet::report_metrics(*m, cache);
  running_server server(std::move(routes), options);
  raw_client c(server.port());
  for (int i = 0; i < 5; ++i) {
    const std::optional<http_response> r = c.request("GET", "/m");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->body, "cached");
    EXPECT_EQ(r->header("Age"), "0");
  }
  EXPECT_EQ(metric_value(*m, R"(stet_route_requests_total{route="GET /m",code="2xx"})"), 5);
  EXPECT_EQ(metric_value(*m, R"(stet_route_handler_seconds_count{route="GET /m"})"), 1);
  EXPECT_EQ(metric_value(*m, R"(stet_cache_hits_total{cache="responses"})"), 4);
  EXPECT_EQ(metric_value(*m, R"(stet_cache_misses_total{cache="responses"})"), 1);
  EXPECT_EQ(metric_value(*m, R"(stet_response_cache_hits_total{route="m"})"), 4);
}

TEST(ResponseCacheWire, AVariantIsCodedOnceNotTwice) {
  stet::server_options options = test_options();
  options.compression.enabled = true;
  stet::response_cache_options cache_options;
  cache_options.compression = options.compression;
  auto cache = std::make_shared<stet::response_cache>(cache_options);
  const std::string body = compressible_text(50'000);
  stet::router routes;
  routes.get("/doc", cache->route("doc", {}), [&body](stet::request&) { return stet::response::json_text(body); });
  running_server server(std::move(routes), options);
  raw_client c(server.port());
  for (int i = 0; i < 3; ++i) {
    const std::optional<http_response> r = c.request("GET", "/doc", "Accept-Encoding: gzip\r\n");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->header("Content-Encoding"), "gzip");
    EXPECT_EQ(r->count("Vary"), 1u);
    EXPECT_EQ(reference_decode(stet::content_coding::gzip, r->body), body);
  }
  EXPECT_EQ(cache->stats().variants_made, 1u);
}

}  // namespace
