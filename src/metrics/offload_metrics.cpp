#include "metrics/offload_metrics.hpp"

#include "coro/offload_pool.hpp"
#include "metrics/exposition.hpp"

#include <algorithm>
#include <array>
#include <string_view>
#include <utility>

namespace stet::detail {
namespace {

void gauge(std::vector<metric_sample>& out, std::string_view name, std::string_view help, std::uint64_t value) {
  out.push_back({name, help, "gauge", "", static_cast<double>(value)});
}

}  // namespace

std::optional<offload_pool::snapshot> read_offload(std::span<const worker_counters* const> workers) {
  std::vector<const offload_pool*> pools;
  for (const worker_counters* w : workers) {
    if (w->offload != nullptr && std::find(pools.begin(), pools.end(), w->offload) == pools.end()) {
      pools.push_back(w->offload);
    }
  }
  offload_pool::snapshot total;
  for (const offload_pool* p : pools) {
    const offload_pool::snapshot s = p->read();
    total.queued_now += s.queued_now;
    total.running_now += s.running_now;
    total.threads += s.threads;
    total.queue_limit += s.queue_limit;
    total.completed += s.completed;
    total.failed += s.failed;
    total.rejected += s.rejected;
    total.withdrawn += s.withdrawn;
    total.dropped += s.dropped;
    total.wait.add(s.wait);
    total.run.add(s.run);
  }
  if (pools.empty()) return std::nullopt;
  return total;
}

void append_offload_metrics(const offload_pool::snapshot& s, std::vector<metric_sample>& samples,
                            std::string& histograms) {
  gauge(samples, "stet_offload_queued", "Offloaded calls waiting for a pool thread now.", s.queued_now);
  gauge(samples, "stet_offload_running", "Offloaded calls running on a pool thread now.", s.running_now);
  gauge(samples, "stet_offload_threads", "Threads of the offload pool (started by the first offload).", s.threads);
  gauge(samples, "stet_offload_queue_limit", "Offloaded calls that may wait; one more is refused (503).",
        s.queue_limit);
  const std::array<std::pair<std::string_view, std::uint64_t>, 5> outcomes = {{
      {R"(outcome="completed")", s.completed},
      {R"(outcome="failed")", s.failed},
      {R"(outcome="rejected")", s.rejected},
      {R"(outcome="withdrawn")", s.withdrawn},
      {R"(outcome="dropped")", s.dropped},
  }};
  for (const auto& [labels, value] : outcomes) {
    samples.push_back({"stet_offload_calls_total",
                       "Offloaded calls by outcome: returned, threw, refused (queue full), taken back before they "
                       "started or finished after their handler was cancelled.",
                       "counter", labels, static_cast<double>(value)});
  }
  append_family(histograms, "stet_offload_wait_seconds", "Time an offloaded call waited in the queue for a thread.",
                "histogram");
  append_histogram(histograms, "stet_offload_wait_seconds", "", s.wait);
  append_family(histograms, "stet_offload_run_seconds", "Time an offloaded call ran on a pool thread.", "histogram");
  append_histogram(histograms, "stet_offload_run_seconds", "", s.run);
}

}  // namespace stet::detail
