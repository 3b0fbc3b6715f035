// The status page's JSON (shape, values read from the same counters as the
// Prometheus text), its quantiles, and the HTML page's caching.
#include <stet/router.hpp>
#include <stet/status_page.hpp>
#include <stet/test_request.hpp>

#include "coro/offload_pool.hpp"
#include "metrics/worker_counters.hpp"
#include "status/status_json.hpp"

#include <gtest/gtest.h>
#include <simdjson.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <string>
#include <string_view>

namespace {

using namespace std::chrono_literals;

// A worker's counters attached to a metrics object for the test's lifetime,
// as a running worker attaches its own.
class attached_worker {
 public:
  explicit attached_worker(stet::metrics& m) : metrics_(m) { stet::detail::metrics_access::attach(metrics_, &c); }
  ~attached_worker() { stet::detail::metrics_access::detach(metrics_, &c); }
  attached_worker(const attached_worker&) = delete;
  attached_worker& operator=(const attached_worker&) = delete;
  stet::detail::worker_counters c;

 private:
  stet::metrics& metrics_;
};

class StatusJson : public ::testing::Test {
 protected:
  // The document as simdjson reads it (a strict parser: anything it accepts is JSON).
  simdjson::dom::element read(const stet::status_page& page) {
    const stet::response r = page.json();
    EXPECT_EQ(r.header("Content-Type"), "application/json");
    EXPECT_EQ(r.header("Cache-Control"), "no-store");
    text_ = std::string(r.body());
    simdjson::dom::element doc;
    const auto error = parser_.parse(text_).get(doc);
    EXPECT_EQ(error, simdjson::SUCCESS) << text_;
    return doc;
  }

  // The entry of `caches` named `name` (a null element if there is none).
  static simdjson::dom::object cache(simdjson::dom::element doc, std::string_view name) {
    for (simdjson::dom::element c : doc["caches"].get_array()) {
      if (c["name"].get_string().value() == name) return c.get_object();
    }
    ADD_FAILURE() << "no cache " << name;
    return {};
  }

  std::shared_ptr<stet::metrics> metrics_ = std::make_shared<stet::metrics>();
  simdjson::dom::parser parser_;
  std::string text_;
};

TEST_F(StatusJson, HasTheDocumentedShape) {
  attached_worker w(*metrics_);
  const stet::status_page page(metrics_);
  const simdjson::dom::element doc = read(page);
  EXPECT_TRUE(doc["stet"].is_string());
  EXPECT_TRUE(doc["uptime_seconds"].is_double());
  EXPECT_TRUE(doc["requests"]["total"].is_uint64());
  for (const char* k : {"1xx", "2xx", "3xx", "4xx", "5xx"}) EXPECT_TRUE(doc["requests"]["by_class"][k].is_uint64());
  EXPECT_TRUE(doc["connections"]["open"].is_uint64());
  EXPECT_TRUE(doc["connections"]["accepted"].is_uint64());
  for (const char* p : {"parse", "handler", "write"}) {
    EXPECT_TRUE(doc["phases"][p]["count"].is_uint64()) << p;
    EXPECT_TRUE(doc["phases"][p]["p50_ms"].is_null()) << p;  // nothing recorded yet
  }
  EXPECT_TRUE(doc["routes"].is_array());
  // Every cache family the Prometheus text has without a static_files
  // collector, plus the route table, each with every field.
  for (const char* name :
       {"cookies", "header_names", "signer_keys", "route_table", "accept_encoding", "compressors", "date"}) {
    const simdjson::dom::object c = cache(doc, name);
    for (const char* field : {"title", "hits", "misses", "hit_rate", "entries", "bytes", "evictions"}) {
      EXPECT_NE(c[field].error(), simdjson::NO_SUCH_FIELD) << name << "." << field;
    }
  }
  EXPECT_EQ(cache(doc, "cookies")["title"].get_string().value(), "cookie LRU");
  EXPECT_TRUE(cache(doc, "cookies")["hit_rate"].is_null());       // no lookup yet
  EXPECT_TRUE(cache(doc, "compressors")["evictions"].is_null());  // a family it does not report
}

TEST_F(StatusJson, NumbersMoveWithTheCounters) {
  attached_worker w(*metrics_);
  const stet::status_page page(metrics_);
  stet::detail::single_writer_add(w.c.requests_by_status[200], 5);
  stet::detail::single_writer_add(w.c.requests_by_status[404]);
  stet::detail::single_writer_add(w.c.connections_open, 2);
  stet::detail::single_writer_add(w.c.connections_accepted, 3);
  stet::detail::single_writer_add(w.c.date_refreshes);
  w.c.phases[1].record(3us);
  simdjson::dom::element doc = read(page);
  EXPECT_EQ(doc["requests"]["total"].get_uint64().value(), 6u);
  EXPECT_EQ(doc["requests"]["by_class"]["2xx"].get_uint64().value(), 5u);
  EXPECT_EQ(doc["requests"]["by_class"]["4xx"].get_uint64().value(), 1u);
  EXPECT_EQ(doc["connections"]["open"].get_uint64().value(), 2u);
  EXPECT_EQ(doc["connections"]["accepted"].get_uint64().value(), 3u);
  EXPECT_EQ(doc["phases"]["handler"]["count"].get_uint64().value(), 1u);
  EXPECT_TRUE(doc["phases"]["handler"]["p50_ms"].is_double());
  // The Date cache as /-/metrics has it: 6 answers, one reformat.
  EXPECT_EQ(cache(doc, "date")["hits"].get_uint64().value(), 5u);
  EXPECT_EQ(cache(doc, "date")["misses"].get_uint64().value(), 1u);
  const double first_uptime = doc["uptime_seconds"].get_double().value();

  stet::detail::single_writer_add(w.c.requests_by_status[200], 10);
  stet::detail::single_writer_add(w.c.requests_by_status[503]);
  doc = read(page);
  EXPECT_EQ(doc["requests"]["total"].get_uint64().value(), 17u);
  EXPECT_EQ(doc["requests"]["by_class"]["5xx"].get_uint64().value(), 1u);
  EXPECT_EQ(cache(doc, "date")["hits"].get_uint64().value(), 16u);
  EXPECT_GE(doc["uptime_seconds"].get_double().value(), first_uptime);
}

// A cache reported by a collector becomes a row of its own; a known label
// gets its title and place, an unknown one follows the known ones.
TEST_F(StatusJson, CollectorCachesBecomeRows) {
  double hits = 30;
  metrics_->add_collector([&hits](std::vector<stet::metric_sample>& out) {
    out.push_back({"stet_cache_hits_total", "", "counter", R"(cache="widgets")", 1});
    out.push_back({"stet_cache_hits_total", "", "counter", R"(cache="tls_sessions")", hits});
    out.push_back({"stet_cache_misses_total", "", "counter", R"(cache="tls_sessions")", 10});
    out.push_back({"stet_cache_entries", "", "gauge", R"(cache="tls_sessions")", 7});
    out.push_back({"stet_cache_bytes", "", "gauge", R"(cache="tls_sessions")", 4096});
    out.push_back({"stet_cache_hits_total", "", "counter", R"(cache="odd",shard="1")", 9});  // not one cache's
  });
  const stet::status_page page(metrics_);
  simdjson::dom::element doc = read(page);
  const simdjson::dom::object tls = cache(doc, "tls_sessions");
  EXPECT_EQ(tls["title"].get_string().value(), "TLS sessions");
  EXPECT_EQ(tls["hits"].get_uint64().value(), 30u);
  EXPECT_EQ(tls["entries"].get_uint64().value(), 7u);
  EXPECT_EQ(tls["bytes"].get_uint64().value(), 4096u);
  EXPECT_DOUBLE_EQ(tls["hit_rate"].get_double().value(), 0.75);
  EXPECT_TRUE(tls["evictions"].is_null());
  EXPECT_EQ(cache(doc, "widgets")["title"].get_string().value(), "widgets");
  std::vector<std::string> order;
  for (simdjson::dom::element c : doc["caches"].get_array()) order.emplace_back(c["name"].get_string().value());
  EXPECT_EQ(order.back(), "widgets");
  EXPECT_EQ(std::count(order.begin(), order.end(), "odd"), 0);
  hits = 90;
  doc = read(page);
  EXPECT_DOUBLE_EQ(cache(doc, "tls_sessions")["hit_rate"].get_double().value(), 0.9);
}

// The offload pool is in the document when a worker sends work to one, with
// the numbers /-/metrics shows for it; null otherwise.
TEST_F(StatusJson, OffloadPoolAppearsWithItsCounters) {
  attached_worker w(*metrics_);
  const stet::status_page page(metrics_);
  EXPECT_TRUE(read(page)["offload"].is_null());

  stet::detail::offload_pool pool({0, 8, std::chrono::seconds(1)});  // no thread: every call is refused
  stet::detail::offload_job job;
  EXPECT_FALSE(pool.submit(job));
  w.c.offload = &pool;
  const simdjson::dom::element doc = read(page);
  const simdjson::dom::element o = doc["offload"];
  ASSERT_TRUE(o.is_object()) << text_;
  EXPECT_EQ(o["threads"].get_uint64().value(), 0u);
  EXPECT_EQ(o["queue_limit"].get_uint64().value(), 8u);
  EXPECT_EQ(o["queued"].get_uint64().value(), 0u);
  EXPECT_EQ(o["running"].get_uint64().value(), 0u);
  EXPECT_EQ(o["calls"]["rejected"].get_uint64().value(), 1u);
  EXPECT_EQ(o["calls"]["completed"].get_uint64().value(), 0u);
  EXPECT_TRUE(o["wait_p99_ms"].is_null());  // nothing ran
  const std::string text = metrics_->text();
  EXPECT_NE(text.find("stet_offload_queue_limit 8\n"), std::string::npos) << text;
  EXPECT_NE(text.find("stet_offload_calls_total{outcome=\"rejected\"} 1\n"), std::string::npos) << text;
  w.c.offload = nullptr;
}

// A cold cache after one miss has no rate yet (not a red 0 %); from
// hit_rate_min_lookups lookups on it has one, however bad.
TEST_F(StatusJson, HitRateWaitsForEnoughLookups) {
  double hits = 0, misses = 1;
  metrics_->add_collector([&](std::vector<stet::metric_sample>& out) {
    out.push_back({"stet_cache_hits_total", "", "counter", R"(cache="widgets")", hits});
    out.push_back({"stet_cache_misses_total", "", "counter", R"(cache="widgets")", misses});
  });
  const stet::status_page page(metrics_);
  EXPECT_TRUE(cache(read(page), "widgets")["hit_rate"].is_null()) << text_;
  misses = stet::detail::hit_rate_min_lookups - 1;
  EXPECT_TRUE(cache(read(page), "widgets")["hit_rate"].is_null()) << text_;
  misses = stet::detail::hit_rate_min_lookups;
  EXPECT_DOUBLE_EQ(cache(read(page), "widgets")["hit_rate"].get_double().value(), 0.0);
  hits = 3;
  misses = 7;
  EXPECT_DOUBLE_EQ(cache(read(page), "widgets")["hit_rate"].get_double().value(), 0.3);
  // The page holds the same threshold for its per-refresh sparkline points.
  stet::test_request q(stet::method::get, "/-/status");
  const std::string min = "data-min-lookups=\"" + std::to_string(stet::detail::hit_rate_min_lookups) + "\"";
  EXPECT_NE(page.page(q).body().find(min), std::string_view::npos);
}

// Unmatched 404s and 405s (and every other answer no route gave) are the
// no_route entry: all answers less those the routes counted, by class.
TEST(StatusNoRoute, AnswersNoRouteGaveHaveTheirEntry) {
  stet::detail::metrics_snapshot s;
  s.by_status[200] = 5;
  s.by_status[404] = 3;  // one from the route's handler, two unmatched
  s.by_status[405] = 1;
  s.by_status[301] = 1;
  s.answered = 10;
  stet::detail::route_totals r;
  r.pattern = "/items/{id:int}";
  r.by_class = {0, 5, 0, 1, 0};
  s.routes.push_back(r);
  std::string text;
  {
    stet::json::writer w(text);
    stet::detail::write_status_json(w, s, 1.0);
  }
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(text).get(doc), simdjson::SUCCESS) << text;
  const simdjson::dom::element n = doc["no_route"];
  ASSERT_TRUE(n.is_object()) << text;
  EXPECT_EQ(n["requests"].get_uint64().value(), 4u);
  EXPECT_EQ(n["by_class"]["4xx"].get_uint64().value(), 3u);
  EXPECT_EQ(n["by_class"]["3xx"].get_uint64().value(), 1u);
  EXPECT_EQ(n["by_class"]["2xx"].get_uint64().value(), 0u);
}

// One 103 ms answer: both quantiles inside the bucket that holds 103 ms
// (100..200 ms), not halfway to the next decade's bound.
TEST(StatusQuantiles, IoBoundDurationStaysInItsBucket) {
  stet::latency_histogram h;
  h.record(103ms);
  for (const double q : {0.5, 0.99}) {
    const auto v = stet::detail::quantile_seconds(h.read(), q);
    ASSERT_TRUE(v);
    EXPECT_GE(*v, 0.1) << q;
    EXPECT_LE(*v, 0.2) << q;
  }
  stet::latency_histogram slow;
  slow.record(std::chrono::milliseconds(2300));  // 2..5 s
  EXPECT_LE(*stet::detail::quantile_seconds(slow.read(), 0.99), 5.0);
  EXPECT_GE(*stet::detail::quantile_seconds(slow.read(), 0.5), 2.0);
}

TEST(StatusQuantiles, InterpolateInsideTheBucket) {
  stet::latency_histogram h;
  EXPECT_FALSE(stet::detail::quantile_seconds(h.read(), 0.5));
  for (int i = 0; i < 100; ++i) h.record(3us);  // all in [2 us, 5 us)
  const auto p50 = stet::detail::quantile_seconds(h.read(), 0.5);
  ASSERT_TRUE(p50);
  EXPECT_NEAR(*p50, 3.5e-6, 1e-12);
  h.record(70ms);  // [50 ms, 100 ms)
  EXPECT_NEAR(*stet::detail::quantile_seconds(h.read(), 1.0), 0.1, 1e-12);
  EXPECT_LT(*stet::detail::quantile_seconds(h.read(), 0.99), 5e-6);
  h.record(100s);  // past the last bound: reported as it
  EXPECT_NEAR(*stet::detail::quantile_seconds(h.read(), 1.0), 10.0, 1e-9);
}

TEST(StatusPage, PageIsOneSharedBodyWithAnEtag) {
  const stet::status_page page(std::make_shared<stet::metrics>());
  stet::test_request first(stet::method::get, "/-/status");
  const stet::response a = page.page(first);
  const stet::response b = page.page(first);
  EXPECT_EQ(a.status(), stet::status::ok);
  EXPECT_EQ(a.header("Content-Type"), "text/html; charset=utf-8");
  EXPECT_EQ(a.header("ETag"), page.etag());
  EXPECT_EQ(a.body().data(), b.body().data());  // the same bytes, not a copy
  EXPECT_NE(a.body().find("<table id=\"caches\">"), std::string_view::npos);
  // No external asset: the one URL is the SVG namespace, nothing is loaded by src=.
  EXPECT_EQ(a.body().find("http"), a.body().find("http://www.w3.org/2000/svg"));
  EXPECT_EQ(a.body().find("src="), std::string_view::npos);

  stet::test_request again(stet::method::get, "/-/status");
  again.header("If-None-Match", page.etag());
  const stet::response c = page.page(again);
  EXPECT_EQ(c.status(), stet::status::not_modified);
  EXPECT_TRUE(c.body().empty());
  EXPECT_EQ(c.header("ETag"), page.etag());
}

// RFC 9110 5.3: If-None-Match sent as two lines is one list of tags.
TEST(StatusPage, IfNoneMatchOfSeveralLinesIsOneList) {
  const stet::status_page page(std::make_shared<stet::metrics>());
  stet::test_request q(stet::method::get, "/-/status");
  q.header("If-None-Match", "\"other\"").header("If-None-Match", page.etag());
  EXPECT_EQ(page.page(q).status(), stet::status::not_modified);
}

TEST(StatusPage, OptionsGoIntoTheBodyEscaped) {
  stet::status_page_options o;
  o.json_url = R"(data.json?a=1&b="2")";
  o.refresh = 500ms;
  o.history = 30;
  const stet::status_page page(std::make_shared<stet::metrics>(), o);
  stet::test_request req(stet::method::get, "/");
  const std::string body(page.page(req).body());
  EXPECT_NE(body.find(R"(data-json="data.json?a=1&amp;b=&quot;2&quot;")"), std::string::npos);
  EXPECT_NE(body.find(R"(data-refresh-ms="500")"), std::string::npos);
  EXPECT_NE(body.find(R"(data-history="30")"), std::string::npos);
  EXPECT_NE(page.etag(), stet::status_page(std::make_shared<stet::metrics>()).etag());
}

TEST(StatusPage, MountServesThePageAndItsJsonBeside) {
  stet::router routes;
  stet::mount_status(routes, "/ops/status", std::make_shared<stet::metrics>());
  stet::mount_status(routes, "/dash/", std::make_shared<stet::metrics>());
  stet::test_request page(stet::method::get, "/ops/status");
  const stet::response html = routes.handle(page);
  EXPECT_EQ(html.status(), stet::status::ok);
  EXPECT_NE(html.body().find(R"(data-json="status.json")"), std::string_view::npos);
  stet::test_request data(stet::method::get, "/ops/status.json");
  EXPECT_EQ(routes.handle(data).header("Content-Type"), "application/json");
  stet::test_request dash(stet::method::get, "/dash/status.json");
  EXPECT_EQ(routes.handle(dash).status(), stet::status::ok);
}

}  // namespace
