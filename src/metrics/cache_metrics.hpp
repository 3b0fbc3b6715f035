#pragma once
// The samples of the library's own caches, for metrics::text(): the per-thread
// header-name and cookie caches and request memos summed over the workers,
// the signers' derived keys, and each route table the workers dispatch on.

#include <stet/metrics.hpp>

#include "metrics/worker_counters.hpp"

#include <span>
#include <vector>

namespace stet::detail {

/// Appends the samples; call with the metrics' list lock held, so that every
/// worker in `workers` (and what it points to) stays alive while it is read.
void collect_library_caches(std::span<const worker_counters* const> workers, std::vector<metric_sample>& out);

/// The router states the workers dispatch on, each once (every worker of a
/// server shares one).
std::vector<const router_state*> distinct_router_states(std::span<const worker_counters* const> workers);

}  // namespace stet::detail
