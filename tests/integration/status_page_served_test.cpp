// The status page and its JSON on a real server: caching of the page, the
// numbers moving after requests, and agreement with the Prometheus text.
#include <stet/static_files.hpp>
#include <stet/status_page.hpp>
#include <stet/stet.hpp>

#include "support/http_client.hpp"
#include "support/prometheus_check.hpp"
#include "support/static_tree.hpp"
#include "support/test_server.hpp"

#include <gtest/gtest.h>
#include <simdjson.h>

#include <memory>
#include <string>
#include <string_view>

namespace {

using stet::test::raw_client;
using stet::test::running_server;

class StatusPageServer : public ::testing::Test {
 protected:
  StatusPageServer() {
    tree_.write("a.txt", "hello");
    stet::static_options no_settle;
    no_settle.settle_time = std::chrono::milliseconds(0);  // the file was written just now
    files_ = std::make_shared<stet::static_files>(tree_.root().string(), no_settle);
    stet::report_metrics(*metrics_, files_);
    stet::router r;
    r.get("/ok", [](stet::request&) { return stet::response::text("ok"); });
    r.get("/-/metrics", [m = metrics_](stet::request&) { return m->respond(); });
    stet::mount(r, "/static", files_);
    stet::mount_status(r, "/-/status", metrics_);
    stet::server_options o = stet::test::test_options();
    o.metrics = metrics_;
    server_ = std::make_unique<running_server>(std::move(r), o);
    client_ = std::make_unique<raw_client>(server_->port());
  }

  simdjson::dom::element status() {
    const auto r = client_->request("GET", "/-/status.json");
    EXPECT_TRUE(r);
    if (!r) return {};
    EXPECT_EQ(r->status, 200);
    EXPECT_EQ(r->header("content-type"), "application/json");
    text_ = r->body;
    simdjson::dom::element doc;
    EXPECT_EQ(parser_.parse(text_).get(doc), simdjson::SUCCESS) << text_;
    return doc;
  }

  static simdjson::dom::object find(simdjson::dom::element doc, std::string_view list, std::string_view key,
                                    std::string_view value) {
    for (simdjson::dom::element e : doc[list].get_array()) {
      if (e[key].get_string().value() == value) return e.get_object();
    }
    ADD_FAILURE() << "no " << list << " entry with " << key << " " << value;
    return {};
  }

  stet::test::temp_tree tree_;
  std::shared_ptr<stet::static_files> files_;
  std::shared_ptr<stet::metrics> metrics_ = std::make_shared<stet::metrics>();
  std::unique_ptr<running_server> server_;
  std::unique_ptr<raw_client> client_;
  simdjson::dom::parser parser_;
  std::string text_;
};

TEST_F(StatusPageServer, PageIsHtmlWithAnEtagAndRevalidates) {
  const auto page = client_->request("GET", "/-/status");
  ASSERT_TRUE(page);
  EXPECT_EQ(page->status, 200);
  EXPECT_EQ(page->header("content-type"), "text/html; charset=utf-8");
  EXPECT_EQ(page->header("cache-control"), "no-cache");
  EXPECT_NE(page->body.find(R"(data-json="status.json")"), std::string::npos);
  const std::optional<std::string> etag = page->header("etag");
  ASSERT_TRUE(etag);
  const auto again = client_->request("GET", "/-/status", "If-None-Match: " + *etag + "\r\n");
  ASSERT_TRUE(again);
  EXPECT_EQ(again->status, 304);
  EXPECT_TRUE(again->body.empty());
  const auto stale = client_->request("GET", "/-/status", "If-None-Match: \"other\"\r\n");
  ASSERT_TRUE(stale);
  EXPECT_EQ(stale->status, 200);
  EXPECT_EQ(stale->body, page->body);
}

TEST_F(StatusPageServer, NumbersMoveAfterRequests) {
  simdjson::dom::element doc = status();
  const std::uint64_t total_before = doc["requests"]["total"].get_uint64().value();
  EXPECT_EQ(find(doc, "routes", "pattern", "/ok")["requests"].get_uint64().value(), 0u);
  EXPECT_TRUE(find(doc, "routes", "pattern", "/ok")["p50_ms"].is_null());
  EXPECT_GE(doc["connections"]["open"].get_uint64().value(), 1u);
  for (const char* name : {"static", "content_hashes", "cookies", "header_names", "signer_keys", "route_table",
                           "accept_encoding", "compressors", "date"}) {
    find(doc, "caches", "name", name);
  }

  for (int i = 0; i < 5; ++i) ASSERT_TRUE(client_->request("GET", "/ok"));
  const std::uint64_t no_route_before = doc["no_route"]["requests"].get_uint64().value();
  // Enough lookups for a hit rate (hit_rate_min_lookups): one miss, then hits.
  for (int i = 0; i < 12; ++i) ASSERT_TRUE(client_->request("GET", "/static/a.txt"));
  ASSERT_TRUE(client_->request("GET", "/missing"));
  doc = status();
  // Read inside the status.json handler: the request itself is not answered yet.
  EXPECT_EQ(doc["requests"]["total"].get_uint64().value(), total_before + 19);
  const simdjson::dom::object ok = find(doc, "routes", "pattern", "/ok");
  EXPECT_EQ(ok["method"].get_string().value(), "GET");
  EXPECT_EQ(ok["requests"].get_uint64().value(), 5u);
  EXPECT_EQ(ok["by_class"]["2xx"].get_uint64().value(), 5u);
  EXPECT_TRUE(ok["p50_ms"].is_double());
  EXPECT_GE(ok["p99_ms"].get_double().value(), ok["p50_ms"].get_double().value());
  const simdjson::dom::object statics = find(doc, "caches", "name", "static");
  EXPECT_EQ(statics["hits"].get_uint64().value(), 11u);
  EXPECT_EQ(statics["misses"].get_uint64().value(), 1u);
  EXPECT_EQ(statics["entries"].get_uint64().value(), 1u);
  EXPECT_EQ(statics["bytes"].get_uint64().value(), 5u);
  EXPECT_NEAR(statics["hit_rate"].get_double().value(), 11.0 / 12.0, 1e-9);
  // The unmatched 404 is on the no-route entry, not on any route's.
  EXPECT_EQ(doc["no_route"]["requests"].get_uint64().value(), no_route_before + 1);
  EXPECT_EQ(doc["no_route"]["by_class"]["4xx"].get_uint64().value(), no_route_before + 1);
  // The route table: every answer but the router's own 404 came from a route.
  const simdjson::dom::object table = find(doc, "caches", "name", "route_table");
  EXPECT_EQ(table["hits"].get_uint64().value(), total_before + 18);
  EXPECT_EQ(table["misses"].get_uint64().value(), 1u);
  EXPECT_EQ(table["entries"].get_uint64().value(), 6u);  // /static is two routes
}

// No second counting path: the JSON and the Prometheus text read the same counters.
TEST_F(StatusPageServer, AgreesWithThePrometheusText) {
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(client_->request("GET", "/static/a.txt"));
  const simdjson::dom::element doc = status();
  const std::uint64_t hits = find(doc, "caches", "name", "static")["hits"].get_uint64().value();
  const std::uint64_t status_json = find(doc, "routes", "pattern", "/-/status.json")["requests"].get_uint64().value();
  const auto text = client_->request("GET", "/-/metrics");
  ASSERT_TRUE(text);
  const auto parsed = stet::test::check_prometheus_text(text->body);
  for (const std::string& e : parsed.errors) ADD_FAILURE() << e;
  EXPECT_EQ(parsed.value(R"(stet_cache_hits_total{cache="static"})"), static_cast<double>(hits));
  EXPECT_EQ(parsed.value(R"(stet_route_requests_total{route="GET /-/status.json",code="2xx"})"),
            static_cast<double>(status_json + 1));
}

}  // namespace
