#include <stet/metrics.hpp>

#include "metrics/cache_families.hpp"
#include "metrics/cache_metrics.hpp"
#include "metrics/exposition.hpp"
#include "metrics/offload_metrics.hpp"
#include "metrics/route_metrics.hpp"
#include "metrics/snapshot.hpp"
#include "metrics/websocket_metrics.hpp"
#include "metrics/worker_counters.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace stet {

namespace detail {

std::string_view to_string(close_reason r) noexcept {
  static constexpr std::array<std::string_view, close_reason_count> names = {
      "first_byte_timeout", "header_timeout",  "body_timeout", "idle_timeout", "write_timeout",
      "evicted_silent",     "evicted_partial", "evicted_idle", "per_address",  "proxy_protocol"};
  return names[static_cast<std::size_t>(r)];
}

}  // namespace detail

std::string_view to_string(phase p) noexcept {
  switch (p) {
    case phase::parse: return "parse";
    case phase::handle: return "handler";
    case phase::write: return "write";
  }
  return "unknown";
}

void detail::metrics_access::attach(metrics& m, const worker_counters* c) {
  std::lock_guard lock(m.mutex_);
  m.workers_.push_back(c);
}

void detail::metrics_access::detach(metrics& m, const worker_counters* c) {
  std::lock_guard lock(m.mutex_);
  std::erase(m.workers_, c);
}

void metrics::add_text_collector(std::function<void(std::string&)> append) {
  std::lock_guard lock(mutex_);
  text_collectors_.push_back(std::move(append));
}

void metrics::add_collector(std::function<void(std::vector<metric_sample>&)> collect) {
  std::lock_guard lock(mutex_);
  collectors_.push_back(std::move(collect));
}

// Per-worker values are summed here, on the reading thread; the workers never
// synchronise with each other or with this reader beyond relaxed loads.
void detail::metrics_access::read(const metrics& m, metrics_snapshot& out) {
  std::uint64_t date_refreshes = 0;
  {
    std::lock_guard lock(m.mutex_);
    for (const worker_counters* w : m.workers_) {
      for (std::size_t i = 0; i < out.by_status.size(); ++i) out.by_status[i] += w->requests_by_status[i].load();
      out.accepted += w->connections_accepted.load();
      out.open += w->connections_open.load();
      date_refreshes += w->date_refreshes.load();
      for (std::size_t r = 0; r < out.closed.size(); ++r) out.closed[r] += w->connections_closed[r].load();
      for (std::size_t p = 0; p < phase_count; ++p) out.phases[p].add(w->phases[p].read());
    }
    collect_library_caches(m.workers_, out.samples);
    collect_routes(m.workers_, out.routes);
    append_websocket_metrics(m.workers_, out.websockets);
    out.offload = read_offload(m.workers_);
    for (const auto& collect : m.collectors_) collect(out.samples);
    for (const auto& append : m.text_collectors_) append(out.appended);
  }
  for (std::size_t code = 100; code < out.by_status.size(); ++code) out.answered += out.by_status[code];
  // The Date header cache: a hit is a response that reused the formatted string.
  add_sample(out.samples, cache_hits, R"(cache="date")",
             out.answered > date_refreshes ? out.answered - date_refreshes : 0);
  add_sample(out.samples, cache_misses, R"(cache="date")", date_refreshes);
}

namespace {

void append_requests_and_phases(const detail::metrics_snapshot& s, std::string& out) {
  auto it = std::back_inserter(out);
  detail::append_family(out, "stet_requests_total", "Requests answered, by status code.", "counter");
  for (std::size_t code = 100; code < s.by_status.size(); ++code) {
    if (s.by_status[code] != 0)
      fmt::format_to(it, "stet_requests_total{{status=\"{}\"}} {}\n", code, s.by_status[code]);
  }
  detail::append_family(out, "stet_connections_accepted_total", "Connections accepted.", "counter");
  fmt::format_to(it, "stet_connections_accepted_total {}\n", s.accepted);
  detail::append_family(out, "stet_connections_open", "Connections open now.", "gauge");
  fmt::format_to(it, "stet_connections_open {}\n", s.open);
  detail::append_family(out, "stet_connections_closed_total", "Connections the server closed itself, by reason.",
                        "counter");
  for (std::size_t r = 0; r < s.closed.size(); ++r) {
    fmt::format_to(it, "stet_connections_closed_total{{reason=\"{}\"}} {}\n",
                   detail::to_string(static_cast<detail::close_reason>(r)), s.closed[r]);
  }

  detail::append_family(out, "stet_phase_seconds", "Time spent per request phase.", "histogram");
  std::string labels;
  for (std::size_t p = 0; p < phase_count; ++p) {
    labels = "phase=\"";
    labels += to_string(static_cast<phase>(p));
    labels += '"';
    detail::append_histogram(out, "stet_phase_seconds", labels, s.phases[p]);
  }
}

// One HELP/TYPE per family, as Prometheus requires: samples of a family are
// grouped (stably, so their collection order stays).
void append_samples(std::vector<metric_sample>& samples, std::string& out) {
  auto it = std::back_inserter(out);
  std::stable_sort(samples.begin(), samples.end(),
                   [](const metric_sample& a, const metric_sample& b) { return a.name < b.name; });
  std::string_view last;
  for (const metric_sample& s : samples) {
    if (s.name != last) detail::append_family(out, s.name, s.help, s.type);
    last = s.name;
    if (s.labels.empty()) {
      fmt::format_to(it, "{} {}\n", s.name, s.value);
    } else {
      fmt::format_to(it, "{}{{{}}} {}\n", s.name, s.labels, s.value);
    }
  }
}

}  // namespace

std::string metrics::text() const {
  detail::metrics_snapshot s;
  detail::metrics_access::read(*this, s);
  std::string out;
  append_requests_and_phases(s, out);
  detail::append_route_metrics(s.routes, out);
  if (s.offload) detail::append_offload_metrics(*s.offload, s.samples, out);
  out += s.websockets;
  append_samples(s.samples, out);
  out += s.appended;
  return out;
}

response metrics::respond() const {
  response r;
  r.set_header("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
  r.set_body(text());
  return r;
}

}  // namespace stet
