#include <stet/metrics.hpp>

#include "metrics/cache_families.hpp"
#include "metrics/cache_metrics.hpp"
#include "metrics/exposition.hpp"
#include "metrics/offload_metrics.hpp"
#include "metrics/route_metrics.hpp"
#include "metrics/worker_counters.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace stet {

std::string_view to_string(phase p) noexcept {
  switch (p) {
    case phase::parse: return "parse";
    case phase::handle: return "handler";
    case phase::write: return "write";
  }
  return "unknown";
}

void latency_histogram::record(std::chrono::nanoseconds d) noexcept {
  const auto us = static_cast<std::uint64_t>(std::max<std::int64_t>(d.count(), 0) / 1000);
  std::size_t bucket = 0;
  while (bucket < bounds_us.size() && us >= bounds_us[bucket]) ++bucket;
  single_writer_add(counts_[bucket]);
  single_writer_add(sum_ns_, static_cast<std::uint64_t>(d.count()));
}

latency_histogram::snapshot latency_histogram::read() const noexcept {
  snapshot s;
  for (std::size_t i = 0; i < counts_.size(); ++i) {
    s.counts[i] = counts_[i].load(std::memory_order_relaxed);
    s.count += s.counts[i];
  }
  s.sum_seconds = static_cast<double>(sum_ns_.load(std::memory_order_relaxed)) / 1e9;
  return s;
}

void latency_histogram::snapshot::add(const snapshot& other) noexcept {
  for (std::size_t i = 0; i < counts.size(); ++i) counts[i] += other.counts[i];
  count += other.count;
  sum_seconds += other.sum_seconds;
}

void detail::metrics_access::attach(metrics& m, const worker_counters* c) {
  std::lock_guard lock(m.mutex_);
  m.workers_.push_back(c);
}

void detail::metrics_access::detach(metrics& m, const worker_counters* c) {
  std::lock_guard lock(m.mutex_);
  std::erase(m.workers_, c);
}

void metrics::add_collector(std::function<void(std::vector<metric_sample>&)> collect) {
  std::lock_guard lock(mutex_);
  collectors_.push_back(std::move(collect));
}

// Per-worker values are summed here, on the reading thread; the workers never
// synchronise with each other or with this reader beyond relaxed loads.
std::string metrics::text() const {
  std::array<std::uint64_t, 600> by_status{};
  std::uint64_t accepted = 0;
  std::uint64_t open = 0;
  std::uint64_t date_refreshes = 0;
  std::array<latency_histogram::snapshot, phase_count> phases{};
  std::vector<metric_sample> samples;
  std::string per_route;
  std::string offload;
  {
    std::lock_guard lock(mutex_);
    for (const detail::worker_counters* w : workers_) {
      for (std::size_t i = 0; i < by_status.size(); ++i) by_status[i] += w->requests_by_status[i].load();
      accepted += w->connections_accepted.load();
      open += w->connections_open.load();
      date_refreshes += w->date_refreshes.load();
      for (std::size_t p = 0; p < phase_count; ++p) phases[p].add(w->phases[p].read());
    }
    detail::collect_library_caches(workers_, samples);
    detail::append_route_metrics(workers_, per_route);
    detail::append_offload_metrics(workers_, samples, offload);
    for (const auto& collect : collectors_) collect(samples);
  }

  std::string out;
  auto it = std::back_inserter(out);
  detail::append_family(out, "stet_requests_total", "Requests answered, by status code.", "counter");
  std::uint64_t answered = 0;
  for (std::size_t code = 100; code < by_status.size(); ++code) {
    if (by_status[code] == 0) continue;
    answered += by_status[code];
    fmt::format_to(it, "stet_requests_total{{status=\"{}\"}} {}\n", code, by_status[code]);
  }
  detail::append_family(out, "stet_connections_accepted_total", "Connections accepted.", "counter");
  fmt::format_to(it, "stet_connections_accepted_total {}\n", accepted);
  detail::append_family(out, "stet_connections_open", "Connections open now.", "gauge");
  fmt::format_to(it, "stet_connections_open {}\n", open);

  detail::append_family(out, "stet_phase_seconds", "Time spent per request phase.", "histogram");
  std::string labels;
  for (std::size_t p = 0; p < phase_count; ++p) {
    labels = "phase=\"";
    labels += to_string(static_cast<phase>(p));
    labels += '"';
    detail::append_histogram(out, "stet_phase_seconds", labels, phases[p]);
  }

  out += per_route;
  out += offload;

  // The Date header cache: a hit is a response that reused the formatted string.
  detail::add_sample(samples, detail::cache_hits, R"(cache="date")",
                     answered > date_refreshes ? answered - date_refreshes : 0);
  detail::add_sample(samples, detail::cache_misses, R"(cache="date")", date_refreshes);
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
  return out;
}

response metrics::respond() const {
  response r;
  r.set_header("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
  r.set_body(text());
  return r;
}

}  // namespace stet
