#pragma once
// WebSocket metrics in Prometheus text: sessions open, messages and bytes in
// and out, drops, publishes and close codes, summed over the workers, and
// the workers' mailboxes (cross-thread posts): refusals, depth and peaks.

#include "metrics/worker_counters.hpp"

#include <string>
#include <vector>

namespace stet::detail {

/// Appends the stet_websocket* families (only once a worker has opened a
/// session, so a server without WebSockets reports none). Call with metrics'
/// worker list locked.
void append_websocket_metrics(const std::vector<const worker_counters*>& workers, std::string& out);

}  // namespace stet::detail
