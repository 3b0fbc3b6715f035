#pragma once
// The topic families of /-/metrics and the status page: what the bus counts
// (`stet_pubsub_*`: published, delivered, refused, lost, reconnects,
// connected) and the server-sent event streams (`stet_sse_*`).

#include <stet/metrics.hpp>

#include "pubsub/bus.hpp"

#include <memory>

namespace stet::detail {

/// Adds a collector of both to `m`. It holds `b` weakly: a metrics object may
/// outlive the server whose bus it reads (then the bus families are left out).
void add_pubsub_collector(metrics& m, std::weak_ptr<const bus> b);

}  // namespace stet::detail
