#pragma once
// Everything a stet::metrics counts, read at one moment. Both expositions (the
// Prometheus text and the status page's JSON) are written from it, so there is
// one reading path and two formats.

#include <stet/method.hpp>
#include <stet/metrics.hpp>

#include "coro/offload_pool.hpp"
#include "metrics/worker_counters.hpp"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace stet::detail {

/// One route's answers and handler time, summed over the workers.
struct route_totals {
  stet::method method = stet::method::get;
  std::string pattern;                      ///< as added, prefixes included
  std::array<std::uint64_t, 5> by_class{};  ///< 1xx .. 5xx
  latency_histogram::snapshot handler;      ///< routing + handler time
  bool answered() const noexcept { return handler.count != 0; }
};

/// The values of one read of a metrics object.
struct metrics_snapshot {
  std::array<std::uint64_t, 600> by_status{};              ///< answers per status code
  std::uint64_t answered = 0;                              ///< the sum of by_status
  std::uint64_t accepted = 0;                              ///< connections accepted
  std::uint64_t open = 0;                                  ///< connections open now
  std::array<std::uint64_t, close_reason_count> closed{};  ///< connections the server closed, by close_reason
  std::array<latency_histogram::snapshot, phase_count> phases{};
  /// Cache samples (the Date cache's included) and the collectors', in the
  /// order collected; their views point to static text.
  std::vector<metric_sample> samples;
  /// Every route of every router the workers dispatch on, in the order added
  /// (up to route_counter_table::max_routes per router).
  std::vector<route_totals> routes;
  std::string websockets;  ///< the WebSocket families, as Prometheus text
  /// The offload pool behind stet::offload, summed over the pools the
  /// workers send work to; nullopt when none does.
  std::optional<offload_pool::snapshot> offload;
  std::string appended;  ///< the text collectors' (TLS), as Prometheus text
};

}  // namespace stet::detail
