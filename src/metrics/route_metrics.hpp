#pragma once
// Per-route metrics: requests by status class and handler time, summed over
// the workers (see route_counter_table), and their Prometheus text.

#include <stet/metrics.hpp>

#include "metrics/snapshot.hpp"
#include "metrics/worker_counters.hpp"

#include <span>
#include <string>
#include <vector>

namespace stet::detail {

/// Appends the totals of every route of the routers `workers` dispatch on.
/// Call with metrics' worker list locked.
void collect_routes(std::span<const worker_counters* const> workers, std::vector<route_totals>& out);

/// Appends stet_route_requests_total and stet_route_handler_seconds for every
/// route that answered at least once.
void append_route_metrics(const std::vector<route_totals>& routes, std::string& out);

}  // namespace stet::detail
