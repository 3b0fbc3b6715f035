#pragma once
// What each worker counts, and how it registers its counters with a
// stet::metrics: internal to the library (the server writes them, the
// exposition in metrics.cpp reads them).

#include <stet/metrics.hpp>

#include <array>
#include <atomic>
#include <cstdint>

namespace stet::detail {

struct memo_stats;
struct router_state;
class offload_pool;

/// Answers and handler time of one route on one worker.
struct route_counters {
  std::array<std::atomic<std::uint64_t>, 5> by_class{};  ///< 1xx .. 5xx
  latency_histogram handler;
};

/// One worker's per-route counters, indexed by the route's index in its router
/// (routes are never removed, so an index always names the same route). The
/// worker grows it in chunks that never move and live as long as the table, so
/// a reader on another thread needs no lock; a chunk is allocated the first
/// time one of its routes answers, so the steady state allocates nothing.
/// Routes past max_routes are counted only in the totals.
class route_counter_table {
 public:
  static constexpr std::size_t chunk_size = 64;
  static constexpr std::size_t max_routes = 64 * chunk_size;

  route_counter_table() = default;
  route_counter_table(const route_counter_table&) = delete;
  route_counter_table& operator=(const route_counter_table&) = delete;
  ~route_counter_table();

  /// Route `id`'s counters (the owning worker only); null past max_routes.
  route_counters* at(std::uint32_t id);
  /// Route `id`'s counters if its chunk exists (any thread), else null.
  const route_counters* find(std::uint32_t id) const noexcept;

 private:
  std::array<std::atomic<route_counters*>, max_routes / chunk_size> chunks_{};
};

/// What every worker counts. Owned by one worker thread, read by the exposition.
struct worker_counters {
  std::array<std::atomic<std::uint64_t>, 600> requests_by_status{};
  std::atomic<std::uint64_t> connections_accepted{0};
  std::atomic<std::uint64_t> connections_open{0};
  std::atomic<std::uint64_t> date_refreshes{0};
  std::array<latency_histogram, phase_count> phases;
  route_counter_table per_route;
  /// Set by the worker before it attaches: its thread's memo and cache
  /// counters, the router state it dispatches on and the offload pool it
  /// sends blocking work to, if any (all outlive the attachment).
  /// metrics::text() reads them with relaxed loads.
  const memo_stats* memo = nullptr;
  const router_state* routes = nullptr;
  const offload_pool* offload = nullptr;

  static void bump(std::atomic<std::uint64_t>& c, std::uint64_t by = 1) noexcept { single_writer_add(c, by); }
};

/// How a worker registers its counters with a stet::metrics while it runs:
/// attach() before its first request, detach() before `c` is destroyed.
/// Thread-safe (takes the metrics' list lock, never on the request path).
struct metrics_access {
  static void attach(stet::metrics& m, const worker_counters* c);
  static void detach(stet::metrics& m, const worker_counters* c);
};

}  // namespace stet::detail
