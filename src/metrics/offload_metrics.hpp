#pragma once
// The offload pool behind stet::offload in the metrics: its queue now, the
// calls by outcome, and how long calls waited for a thread and ran.

#include <stet/metrics.hpp>

#include "metrics/worker_counters.hpp"

#include <span>
#include <string>
#include <vector>

namespace stet::detail {

/// Appends the gauges and counters to `samples` and the wait and run time
/// histograms to `histograms`, summed over the pools the workers offload to
/// (nothing when none does). Call with the metrics' list lock held.
void append_offload_metrics(std::span<const worker_counters* const> workers, std::vector<metric_sample>& samples,
                            std::string& histograms);

}  // namespace stet::detail
