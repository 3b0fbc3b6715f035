#pragma once
// The offload pool behind stet::offload in the metrics: its queue now, the
// calls by outcome, and how long calls waited for a thread and ran.

#include <stet/metrics.hpp>

#include "coro/offload_pool.hpp"
#include "metrics/worker_counters.hpp"

#include <optional>
#include <span>
#include <string>
#include <vector>

namespace stet::detail {

/// The pools the workers offload to, read and summed (each pool once);
/// nullopt when no worker has one. Call with the metrics' list lock held.
std::optional<offload_pool::snapshot> read_offload(std::span<const worker_counters* const> workers);

/// Appends the gauges and counters of `s` to `samples` and its wait and run
/// time histograms, as Prometheus text, to `histograms`.
void append_offload_metrics(const offload_pool::snapshot& s, std::vector<metric_sample>& samples,
                            std::string& histograms);

}  // namespace stet::detail
