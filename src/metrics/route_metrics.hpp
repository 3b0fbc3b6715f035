#pragma once
// Per-route metrics in Prometheus text: requests by status class and handler
// time, summed over the workers (see route_counter_table).

#include <stet/metrics.hpp>

#include "metrics/worker_counters.hpp"

#include <string>
#include <vector>

namespace stet::detail {

/// Appends stet_route_requests_total and stet_route_handler_seconds for every
/// route that answered at least once. Call with metrics' worker list locked.
void append_route_metrics(const std::vector<const worker_counters*>& workers, std::string& out);

}  // namespace stet::detail
