#include "status/status_json.hpp"

#include <stet/config.hpp>

#include "metrics/cache_families.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace stet::detail {
namespace {

// Adding a cache to the page is one line here (its label, its title); its
// numbers come from the stet_cache_* samples it already reports.
constexpr std::array<cache_title, 14> titles = {{
    {"responses", "response cache"},
    {"response_variants", "compressed cached responses"},
    {"static", "static files"},
    {"static_variants", "compressed static variants"},
    {"content_hashes", "content hashes"},
    {"cookies", "cookie LRU"},
    {"header_names", "header names"},
    {"signer_keys", "signer contexts"},
    {"tls_sessions", "TLS sessions"},
    {"route_table", "route table"},
    {"accept_encoding", "Accept-Encoding memo"},
    {"compressors", "compressor states"},
    {"coroutine_frames", "coroutine frames"},
    {"date", "Date header"},
}};

struct cache_row {
  explicit cache_row(std::string_view n) noexcept : name(n) {}
  std::string_view name;
  std::optional<std::uint64_t> hits, misses, evictions, entries, bytes;
};

using row_field = std::optional<std::uint64_t> cache_row::*;
constexpr std::array<std::pair<std::string_view, row_field>, 5> fields = {{
    {cache_hits.name, &cache_row::hits},
    {cache_misses.name, &cache_row::misses},
    {cache_evictions.name, &cache_row::evictions},
    {cache_entries.name, &cache_row::entries},
    {"stet_cache_bytes", &cache_row::bytes},
}};

// The X of a label set that is exactly `cache="X"`, else empty.
std::string_view cache_label(std::string_view labels) noexcept {
  constexpr std::string_view open = "cache=\"";
  if (labels.size() <= open.size() + 1 || !labels.starts_with(open) || labels.back() != '"') return {};
  const std::string_view name = labels.substr(open.size(), labels.size() - open.size() - 1);
  return name.find('"') == std::string_view::npos ? name : std::string_view();
}

cache_row& row_for(std::vector<cache_row>& rows, std::string_view name) {
  const auto found = std::find_if(rows.begin(), rows.end(), [name](const cache_row& r) { return r.name == name; });
  if (found != rows.end()) return *found;
  return rows.emplace_back(name);
}

std::optional<std::uint64_t> sample_value(const metrics_snapshot& s, std::string_view name) noexcept {
  for (const metric_sample& m : s.samples) {
    if (m.name == name && m.labels.empty()) return static_cast<std::uint64_t>(m.value);
  }
  return std::nullopt;
}

// The route table is a cache of compiled patterns: a request a route answered
// is a hit; an answer no route gave (the router's own 404, 405, OPTIONS and
// redirects, and errors answered before routing) is a miss.
cache_row route_table_row(const metrics_snapshot& s) {
  cache_row row("route_table");
  std::uint64_t routed = 0;
  for (const route_totals& r : s.routes) {
    for (const std::uint64_t n : r.by_class) routed += n;
  }
  row.hits = routed;
  row.misses = s.answered > routed ? s.answered - routed : 0;
  row.entries = sample_value(s, "stet_route_table_routes");
  return row;
}

std::size_t rank(std::string_view name) noexcept {
  const auto it = std::find_if(titles.begin(), titles.end(), [name](const cache_title& t) { return t.name == name; });
  return static_cast<std::size_t>(it - titles.begin());
}

std::vector<cache_row> cache_rows(const metrics_snapshot& s) {
  std::vector<cache_row> rows;
  rows.reserve(titles.size());
  for (const metric_sample& m : s.samples) {
    const std::string_view name = cache_label(m.labels);
    if (name.empty()) continue;
    for (const auto& [family, field] : fields) {
      if (m.name == family) row_for(rows, name).*field = static_cast<std::uint64_t>(m.value);
    }
  }
  rows.push_back(route_table_row(s));
  std::stable_sort(rows.begin(), rows.end(),
                   [](const cache_row& a, const cache_row& b) { return rank(a.name) < rank(b.name); });
  return rows;
}

// A rate over a handful of lookups says nothing yet (a cold cache after its
// first miss is not a cache that never hits): null until min_lookups.
std::optional<double> ratio(std::optional<std::uint64_t> hits, std::optional<std::uint64_t> misses) noexcept {
  const std::uint64_t lookups = hits.value_or(0) + misses.value_or(0);
  if (!hits || lookups < hit_rate_min_lookups) return std::nullopt;
  return static_cast<double>(*hits) / static_cast<double>(lookups);
}

void write_caches(json::writer& w, const metrics_snapshot& s) {
  w.key("caches").begin_array();
  for (const cache_row& r : cache_rows(s)) {
    const std::size_t at = rank(r.name);
    w.begin_object().member("name", r.name).member("title", at < titles.size() ? titles[at].title : r.name);
    w.member("hits", r.hits).member("misses", r.misses).member("hit_rate", ratio(r.hits, r.misses));
    w.member("entries", r.entries).member("bytes", r.bytes).member("evictions", r.evictions);
    w.end_object();
  }
  w.end_array();
}

std::optional<double> quantile_ms(const latency_histogram::snapshot& h, double q) noexcept {
  const std::optional<double> s = quantile_seconds(h, q);
  return s ? std::optional<double>(*s * 1e3) : std::nullopt;
}

void write_classes(json::writer& w, const std::array<std::uint64_t, 5>& by_class) {
  constexpr std::array<std::string_view, 5> names = {"1xx", "2xx", "3xx", "4xx", "5xx"};
  w.begin_object();
  for (std::size_t k = 0; k < names.size(); ++k) w.member(names[k], by_class[k]);
  w.end_object();
}

void write_routes(json::writer& w, const metrics_snapshot& s) {
  w.key("routes").begin_array();
  for (const route_totals& r : s.routes) {
    std::uint64_t requests = 0;
    for (const std::uint64_t n : r.by_class) requests += n;
    w.begin_object().member("method", to_string(r.method)).member("pattern", r.pattern);
    w.member("requests", requests).key("by_class");
    write_classes(w, r.by_class);
    w.member("p50_ms", quantile_ms(r.handler, 0.5)).member("p99_ms", quantile_ms(r.handler, 0.99));
    w.end_object();
  }
  w.end_array();
}

std::array<std::uint64_t, 5> classes_of(const metrics_snapshot& s) noexcept {
  std::array<std::uint64_t, 5> by_class{};
  for (std::size_t code = 100; code < s.by_status.size(); ++code) by_class[code / 100 - 1] += s.by_status[code];
  return by_class;
}

// The answers no route gave (404 and 405 for paths and methods no route
// takes, OPTIONS, trailing-slash redirects, errors answered before routing):
// every answer less those the routes counted.
void write_no_route(json::writer& w, const metrics_snapshot& s) {
  std::array<std::uint64_t, 5> by_class = classes_of(s);
  for (const route_totals& r : s.routes) {
    for (std::size_t k = 0; k < by_class.size(); ++k) by_class[k] -= std::min(by_class[k], r.by_class[k]);
  }
  std::uint64_t requests = 0;
  for (const std::uint64_t n : by_class) requests += n;
  w.key("no_route").begin_object().member("requests", requests).key("by_class");
  write_classes(w, by_class);
  w.end_object();
}

void write_totals(json::writer& w, const metrics_snapshot& s) {
  w.key("requests").begin_object().member("total", s.answered).key("by_class");
  write_classes(w, classes_of(s));
  w.end_object();
  w.key("connections").begin_object().member("open", s.open).member("accepted", s.accepted);
  // Event streams and topics: null until a server with its bus reports them.
  const auto or_null = [&w](std::string_view key, std::optional<std::uint64_t> v) {
    if (v) {
      w.member(key, *v);
    } else {
      w.key(key).null();
    }
  };
  or_null("event_streams", sample_value(s, "stet_sse_streams_open"));
  or_null("published", sample_value(s, "stet_pubsub_published_total"));
  or_null("delivered", sample_value(s, "stet_pubsub_delivered_total"));
  // 1 while the bus reaches its backend (Redis), 0 while it does not.
  or_null("pubsub_connected", sample_value(s, "stet_pubsub_connected"));
  w.end_object();
  w.key("phases").begin_object();
  for (std::size_t p = 0; p < phase_count; ++p) {
    w.key(to_string(static_cast<phase>(p))).begin_object().member("count", s.phases[p].count);
    w.member("p50_ms", quantile_ms(s.phases[p], 0.5)).member("p99_ms", quantile_ms(s.phases[p], 0.99));
    w.end_object();
  }
  w.end_object();
}

// The pool behind stet::offload, as in stet_offload_*: null when no worker has
// one (a server that never offloads still has one, with no thread started).
void write_offload(json::writer& w, const metrics_snapshot& s) {
  w.key("offload");
  if (!s.offload) {
    w.null();
    return;
  }
  const offload_pool::snapshot& o = *s.offload;
  w.begin_object().member("threads", o.threads).member("queue_limit", o.queue_limit);
  w.member("queued", o.queued_now).member("running", o.running_now);
  w.key("calls").begin_object().member("completed", o.completed).member("failed", o.failed);
  w.member("rejected", o.rejected).member("withdrawn", o.withdrawn).member("dropped", o.dropped).end_object();
  w.member("wait_p50_ms", quantile_ms(o.wait, 0.5)).member("wait_p99_ms", quantile_ms(o.wait, 0.99));
  w.member("run_p50_ms", quantile_ms(o.run, 0.5)).member("run_p99_ms", quantile_ms(o.run, 0.99));
  w.end_object();
}

}  // namespace

std::span<const cache_title> known_caches() noexcept { return titles; }

std::optional<double> quantile_seconds(const latency_histogram::snapshot& h, double q) noexcept {
  if (h.count == 0) return std::nullopt;
  const double target = std::clamp(q, 0.0, 1.0) * static_cast<double>(h.count);
  const auto& bounds = latency_histogram::bounds_us;
  double below = 0;
  for (std::size_t b = 0; b < bounds.size(); ++b) {
    const auto in = static_cast<double>(h.counts[b]);
    if (in > 0 && below + in >= target) {
      const double lower = b == 0 ? 0.0 : bounds[b - 1];
      const double upper = bounds[b];
      return (lower + (upper - lower) * (target - below) / in) / 1e6;
    }
    below += in;
  }
  return bounds.back() / 1e6;
}

void write_status_json(json::writer& w, const metrics_snapshot& s, double uptime_seconds) {
  w.begin_object().member("stet", version_string).member("uptime_seconds", uptime_seconds);
  write_totals(w, s);
  write_caches(w, s);
  write_routes(w, s);
  write_no_route(w, s);
  write_offload(w, s);
  w.end_object();
}

}  // namespace stet::detail
