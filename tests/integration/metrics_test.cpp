// Metrics exposition, phase timings, Server-Timing and the tracer hook.
#include <stet/signer.hpp>
#include <stet/static_files.hpp>
#include <stet/stet.hpp>

#include "support/http_client.hpp"
#include "support/prometheus_check.hpp"
#include "support/test_server.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <mutex>

namespace {

using stet::test::check_prometheus_text;
using stet::test::raw_client;
using stet::test::running_server;

stet::router routes_with_metrics(const std::shared_ptr<stet::metrics>& m) {
  stet::router r;
  r.get("/ok", [](stet::request&) { return stet::response::text("ok"); });
  r.get("/-/metrics", [m](stet::request&) { return m->respond(); });
  return r;
}

TEST(Metrics, ExpositionParsesAndCounts) {
  auto m = std::make_shared<stet::metrics>();
  stet::server_options o = stet::test::test_options();
  o.metrics = m;
  running_server server(routes_with_metrics(m), o);
  raw_client client(server.port());
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(client.request("GET", "/ok"));
  ASSERT_TRUE(client.request("GET", "/missing"));
  const auto r = client.request("GET", "/-/metrics");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->header("content-type"), "text/plain; version=0.0.4; charset=utf-8");
  const auto parsed = check_prometheus_text(r->body);
  for (const std::string& e : parsed.errors) ADD_FAILURE() << e;
  EXPECT_EQ(parsed.value("stet_requests_total{status=\"200\"}"), 5);
  EXPECT_EQ(parsed.value("stet_requests_total{status=\"404\"}"), 1);
  EXPECT_EQ(parsed.value("stet_connections_open"), 1);
  EXPECT_EQ(parsed.value("stet_connections_accepted_total"), 1);
  // Read inside the 7th request's handler: its parse is recorded, its handler and write not yet.
  EXPECT_EQ(parsed.value("stet_phase_seconds_count{phase=\"parse\"}"), 7);
  EXPECT_EQ(parsed.value("stet_phase_seconds_count{phase=\"handler\"}"), 6);
  EXPECT_EQ(parsed.value("stet_phase_seconds_count{phase=\"write\"}"), 6);
  EXPECT_EQ(parsed.value("stet_phase_seconds_bucket{phase=\"parse\",le=\"+Inf\"}"), 7);
  EXPECT_GE(parsed.value("stet_cache_misses_total{cache=\"date\"}"), 1);
  EXPECT_EQ(parsed.types.at("stet_phase_seconds"), "histogram");
}

// Requests and handler time per route, keyed by method and pattern; the
// router's automatic answers (404 here) are only in the totals.
TEST(Metrics, RequestsAndHandlerTimeArePerRoute) {
  auto m = std::make_shared<stet::metrics>();
  stet::server_options o = stet::test::test_options();
  o.metrics = m;
  stet::router r = routes_with_metrics(m);
  r.get("/users/{id:int}", [](stet::request&, std::int64_t id) {
    if (id == 0) return stet::response::text("none", stet::status::not_found);
    return stet::response::text("user");
  });
  running_server server(std::move(r), o);
  raw_client client(server.port());
  for (const char* target : {"/users/1", "/users/2", "/users/0", "/ok", "/missing"}) {
    ASSERT_TRUE(client.request("GET", target)) << target;
  }
  const auto got = client.request("GET", "/-/metrics");
  ASSERT_TRUE(got);
  const auto parsed = check_prometheus_text(got->body);
  for (const std::string& e : parsed.errors) ADD_FAILURE() << e;
  const std::string users = "route=\"GET /users/{id:int}\"";
  EXPECT_EQ(parsed.value("stet_route_requests_total{" + users + ",code=\"2xx\"}"), 2);
  EXPECT_EQ(parsed.value("stet_route_requests_total{" + users + ",code=\"4xx\"}"), 1);
  EXPECT_EQ(parsed.value("stet_route_handler_seconds_count{" + users + "}"), 3);
  EXPECT_EQ(parsed.value("stet_route_handler_seconds_bucket{" + users + ",le=\"+Inf\"}"), 3);
  EXPECT_EQ(parsed.value("stet_route_requests_total{route=\"GET /ok\",code=\"2xx\"}"), 1);
  EXPECT_EQ(parsed.types.at("stet_route_handler_seconds"), "histogram");
  EXPECT_EQ(got->body.find("/missing"), std::string::npos);  // an unrouted path never becomes a label
}

TEST(Metrics, CollectorsAddTheirSamples) {
  auto m = std::make_shared<stet::metrics>();
  m->add_collector([](std::vector<stet::metric_sample>& out) {
    out.push_back({"stet_cache_hits_total", "Cache hits.", "counter", R"(cache="test")", 42});
  });
  const auto parsed = check_prometheus_text(m->text());
  for (const std::string& e : parsed.errors) ADD_FAILURE() << e;
  EXPECT_EQ(parsed.value("stet_cache_hits_total{cache=\"test\"}"), 42);
}

TEST(Metrics, StaticFileCountersAreReported) {
  const auto root = std::filesystem::temp_directory_path() / ("stet-metrics-" + std::to_string(::getpid()));
  std::filesystem::create_directories(root);
  std::ofstream(root / "a.txt") << "hello";
  stet::static_options no_settle;
  no_settle.settle_time = std::chrono::milliseconds(0);  // the file was written just now
  auto files = std::make_shared<stet::static_files>(root.string(), no_settle);
  auto m = std::make_shared<stet::metrics>();
  stet::report_metrics(*m, files);
  stet::router r;
  stet::mount(r, "/static", files);
  {
    running_server server(r);
    raw_client client(server.port());
    for (int i = 0; i < 3; ++i) ASSERT_TRUE(client.request("GET", "/static/a.txt"));
  }
  const auto parsed = check_prometheus_text(m->text());
  for (const std::string& e : parsed.errors) ADD_FAILURE() << e;
  EXPECT_EQ(parsed.value("stet_cache_misses_total{cache=\"static\"}"), 1);
  EXPECT_EQ(parsed.value("stet_cache_hits_total{cache=\"static\"}"), 2);
  EXPECT_EQ(parsed.value("stet_cache_bytes{cache=\"static\"}"), 5);
  EXPECT_EQ(parsed.value("stet_cache_misses_total{cache=\"content_hashes\"}"), 0);
  EXPECT_EQ(parsed.value("stet_cache_hits_total{cache=\"content_hashes\"}"), 0);

  // static_url() needs the content hash: computed once, then known.
  EXPECT_EQ(files->static_url("a.txt"), files->static_url("a.txt"));
  const auto hashed = check_prometheus_text(m->text());
  EXPECT_EQ(hashed.value("stet_cache_misses_total{cache=\"content_hashes\"}"), 1);
  EXPECT_EQ(hashed.value("stet_cache_hits_total{cache=\"content_hashes\"}"), 1);
  std::filesystem::remove_all(root);
}

// The library's own caches, read from the exposition before and after the
// requests that exercise them.
struct library_cache_site {
  std::shared_ptr<stet::metrics> m = std::make_shared<stet::metrics>();
  std::shared_ptr<const stet::signer> sig =
      std::make_shared<const stet::signer>(std::vector<std::string>{"metrics-test-secret"}, "actor");
  stet::router r;

  library_cache_site() {
    r.get("/-/metrics", [m = m](stet::request&) { return m->respond(); });
    r.get("/cookie",
          [](stet::request& req) { return stet::response::text(std::string(req.cookies().get("a").value_or("-"))); });
    r.get("/headers", [](stet::request& req) {
      return stet::response::text(std::string(req.headers().get("x-mixed-case").value_or("-")));
    });
    r.get("/login", [s = sig](stet::request&) {
      stet::response res = stet::response::text("in");
      res.set_signed_cookie(*s, "actor", "alice");
      return res;
    });
    r.get("/actor", [s = sig](stet::request& req) {
      return stet::response::text(std::string(req.signed_cookie(*s, "actor").value_or("-")));
    });
  }
};

stet::test::prometheus_parse read_metrics(raw_client& client) {
  const auto r = client.request("GET", "/-/metrics");
  EXPECT_TRUE(r);
  auto parsed = check_prometheus_text(r ? r->body : std::string());
  for (const std::string& e : parsed.errors) ADD_FAILURE() << e;
  return parsed;
}

TEST(Metrics, LibraryCachesAreReportedAndMove) {
  library_cache_site site;
  stet::server_options o = stet::test::test_options();
  o.threads = 1;  // one worker: its per-thread caches see every request
  o.metrics = site.m;
  running_server server(site.r, o);
  raw_client client(server.port());

  const auto before = read_metrics(client);
  for (const char* cache : {"header_names", "cookies", "signer_keys"}) {
    for (const char* series : {"stet_cache_hits_total", "stet_cache_misses_total", "stet_cache_entries"}) {
      const std::string key = std::string(series) + "{cache=\"" + cache + "\"}";
      EXPECT_GE(before.value(key), 0) << key << " missing";
    }
  }
  EXPECT_EQ(before.types.at("stet_cache_entries"), "gauge");
  EXPECT_EQ(before.value("stet_route_table_routes"), 5);
  EXPECT_EQ(before.value("stet_route_table_swaps_total"), 0);

  // The same Cookie header twice: parsed once, then found in the LRU.
  for (int i = 0; i < 2; ++i) {
    const auto r = client.request("GET", "/cookie", "Cookie: a=1; b=2\r\n");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->body, "1");
  }
  // A mixed-case name twice: inserted into the lowercase cache, then hit.
  for (int i = 0; i < 2; ++i) ASSERT_TRUE(client.request("GET", "/headers", "X-Mixed-Case: v\r\n"));
  // A signed cookie verified with the signer's derived key.
  const auto login = client.request("GET", "/login");
  ASSERT_TRUE(login && login->header("set-cookie"));
  const std::string set_cookie = *login->header("set-cookie");
  const std::string cookie = set_cookie.substr(0, set_cookie.find(';'));
  const auto actor = client.request("GET", "/actor", "Cookie: " + cookie + "\r\n");
  ASSERT_TRUE(actor);
  EXPECT_EQ(actor->body, "alice");

  const auto after = read_metrics(client);
  const auto moved = [&](const std::string& key) { return after.value(key) - before.value(key); };
  EXPECT_EQ(moved(R"(stet_cache_hits_total{cache="cookies"})"), 1);
  EXPECT_EQ(moved(R"(stet_cache_misses_total{cache="cookies"})"), 2);  // a=1;b=2 and the signed one
  EXPECT_EQ(after.value(R"(stet_cache_entries{cache="cookies"})"), 2);
  EXPECT_GE(moved(R"(stet_cache_hits_total{cache="header_names"})"), 1);
  EXPECT_GE(after.value(R"(stet_cache_entries{cache="header_names"})"), 1);
  EXPECT_EQ(moved(R"(stet_cache_hits_total{cache="signer_keys"})"), 2);  // one MAC to sign, one to verify
  EXPECT_GE(after.value(R"(stet_cache_misses_total{cache="signer_keys"})"), 1);
  EXPECT_GE(after.value(R"(stet_cache_entries{cache="signer_keys"})"), 1);
  EXPECT_EQ(moved(R"(stet_memo_builds_total{memo="cookies"})"), 2);

  // A route added while serving builds and swaps in a new table.
  site.r.get("/late", [](stet::request&) { return stet::response::text("late"); });
  const auto late = client.request("GET", "/late");
  ASSERT_TRUE(late);
  EXPECT_EQ(late->body, "late");
  const auto swapped = read_metrics(client);
  EXPECT_EQ(swapped.value("stet_route_table_routes"), 6);
  EXPECT_EQ(swapped.value("stet_route_table_swaps_total"), 1);
}

TEST(Metrics, CheckerRejectsMalformedText) {
  EXPECT_FALSE(check_prometheus_text("x 1\n").errors.empty());                         // no TYPE
  EXPECT_FALSE(check_prometheus_text("# TYPE x counter\nx{a=b} 1\n").errors.empty());  // unquoted label
  EXPECT_FALSE(check_prometheus_text("# TYPE x counter\nx one\n").errors.empty());     // bad value
  EXPECT_FALSE(check_prometheus_text("# TYPE x counter\nx 1").errors.empty());         // no final newline
}

TEST(Metrics, ServerTimingOnlyWhenEnabled) {
  stet::router r;
  r.get("/ok", [](stet::request&) { return stet::response::text("ok"); });
  {
    running_server server(r);
    raw_client client(server.port());
    const auto res = client.request("GET", "/ok");
    ASSERT_TRUE(res);
    EXPECT_FALSE(res->header("server-timing"));
  }
  stet::server_options o = stet::test::test_options();
  o.server_timing = true;
  running_server server(r, o);
  raw_client client(server.port());
  const auto res = client.request("GET", "/ok");
  ASSERT_TRUE(res);
  const auto timing = res->header("server-timing");
  ASSERT_TRUE(timing);
  EXPECT_EQ(timing->rfind("parse;dur=", 0), 0u) << *timing;
  EXPECT_NE(timing->find(", handler;dur="), std::string::npos) << *timing;
}

class recording_tracer final : public stet::tracer {
 public:
  void on_phase(const stet::request* req, stet::phase p, std::chrono::steady_clock::time_point start,
                std::chrono::steady_clock::time_point end) noexcept override {
    std::lock_guard lock(mutex);
    spans.push_back({p, req != nullptr ? std::string(req->path()) : std::string(), end >= start});
  }
  struct span {
    stet::phase p;
    std::string path;
    bool ordered;
  };
  std::mutex mutex;
  std::vector<span> spans;
};

TEST(Metrics, TracerSeesEveryPhase) {
  auto t = std::make_shared<recording_tracer>();
  stet::server_options o = stet::test::test_options();
  o.tracer = t;
  stet::router r;
  r.get("/ok", [](stet::request&) { return stet::response::text("ok"); });
  {
    running_server server(r, o);
    raw_client client(server.port());
    ASSERT_TRUE(client.request("GET", "/ok"));
  }
  std::lock_guard lock(t->mutex);
  ASSERT_EQ(t->spans.size(), 3u);
  EXPECT_EQ(t->spans[0].p, stet::phase::parse);
  EXPECT_EQ(t->spans[0].path, "/ok");
  EXPECT_EQ(t->spans[1].p, stet::phase::handle);
  EXPECT_EQ(t->spans[2].p, stet::phase::write);
  for (const auto& s : t->spans) EXPECT_TRUE(s.ordered);
}

}  // namespace
