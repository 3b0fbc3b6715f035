#pragma once
// What each worker counts, and how it registers its counters with a
// stet::metrics: internal to the library (the server writes them, the
// exposition in metrics.cpp reads them).

#include <stet/metrics.hpp>

#include "counters/counter_add.hpp"

#include <array>
#include <atomic>
#include <cstdint>
#include <string_view>

namespace stet::detail {

struct memo_stats;
struct router_state;
class offload_pool;
struct metrics_snapshot;

/// Why stet closed a connection itself, rather than after an answer or when
/// the client left: counted in `stet_connections_closed_total{reason}`.
enum class close_reason : std::uint8_t {
  first_byte_timeout,  ///< a new connection sent nothing for first_byte_timeout
  header_timeout,      ///< a request head did not complete in header_timeout (408 if part of one came)
  body_timeout,        ///< a body paused longer than body_timeout (408)
  idle_timeout,        ///< a keep-alive connection sent no next request in idle_timeout
  write_timeout,       ///< a response write made no progress in write_timeout
  evicted_silent,      ///< at max_connections: made room, had sent nothing
  evicted_partial,     ///< at max_connections: made room, had sent part of a request head
  evicted_idle,        ///< at max_connections: made room, was an idle keep-alive
  per_address,         ///< over max_connections_per_address for its client address
  proxy_protocol,      ///< on a PROXY protocol listener: no valid header
};
inline constexpr std::size_t close_reason_count = 10;
/// The `reason` label of a close_reason ("first_byte_timeout", ...).
std::string_view to_string(close_reason r) noexcept;

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

/// One worker's WebSocket counters; written by the worker only (see single_writer_add()).
struct websocket_counters {
  /// closes[] slots: codes 1000-1015 one each, then 3000-4999 together, then any other.
  static constexpr std::size_t code_slots = 18;
  std::atomic<std::uint64_t> opened{0};        ///< sessions started (upgrades accepted)
  std::atomic<std::uint64_t> open{0};          ///< sessions open now
  std::atomic<std::uint64_t> messages_in{0};   ///< whole messages received
  std::atomic<std::uint64_t> messages_out{0};  ///< messages queued (sent and published), control frames excluded
  std::atomic<std::uint64_t> bytes_in{0};      ///< bytes read after the 101, frame heads included
  std::atomic<std::uint64_t> bytes_out{0};     ///< bytes written after the 101
  std::atomic<std::uint64_t> dropped{0};       ///< messages not queued: the queue was over max_backpressure
  std::atomic<std::uint64_t> published{0};     ///< publish() calls made on this worker
  std::array<std::atomic<std::uint64_t>, code_slots> closes{};  ///< on_close reports, by code
  // The worker's mailbox (src/net/ws/websocket_mailbox.hpp): written by any
  // thread, always under the mailbox's lock, so still one writer at a time.
  std::atomic<std::uint64_t> mailbox_dropped{0};        ///< posts refused: the mailbox was full
  std::atomic<std::uint64_t> mailbox_messages{0};       ///< entries waiting now
  std::atomic<std::uint64_t> mailbox_bytes{0};          ///< their bytes now
  std::atomic<std::uint64_t> mailbox_peak_messages{0};  ///< the most entries ever waiting at once
  std::atomic<std::uint64_t> mailbox_peak_bytes{0};     ///< the most bytes ever held at once

  /// The closes[] slot of `code`.
  static constexpr std::size_t slot_of(std::uint16_t code) noexcept {
    if (code >= 1000 && code <= 1015) return code - 1000u;
    return code >= 3000 && code <= 4999 ? 16 : 17;
  }
};

/// What every worker counts. Owned by one worker thread, read by the exposition.
struct worker_counters {
  std::array<std::atomic<std::uint64_t>, 600> requests_by_status{};
  std::atomic<std::uint64_t> connections_accepted{0};
  std::atomic<std::uint64_t> connections_open{0};
  std::atomic<std::uint64_t> date_refreshes{0};
  /// Connections the worker closed itself, by close_reason.
  std::array<std::atomic<std::uint64_t>, close_reason_count> connections_closed{};
  std::array<latency_histogram, phase_count> phases;
  route_counter_table per_route;
  websocket_counters websockets;
  /// Set by the worker before it attaches: its thread's memo and cache
  /// counters, the router state it dispatches on and the offload pool it
  /// sends blocking work to, if any (all outlive the attachment).
  /// metrics::text() reads them with relaxed loads.
  const memo_stats* memo = nullptr;
  const router_state* routes = nullptr;
  const offload_pool* offload = nullptr;
};

/// How a worker registers its counters with a stet::metrics while it runs:
/// attach() before its first request, detach() before `c` is destroyed; and
/// how the expositions read them all at once (read()). Thread-safe (each takes
/// the metrics' list lock, never on the request path).
struct metrics_access {
  static void attach(stet::metrics& m, const worker_counters* c);
  static void detach(stet::metrics& m, const worker_counters* c);
  /// Sums the attached workers' counters, runs the cache collectors and the
  /// user's, and names the routes: the one read both expositions share.
  static void read(const stet::metrics& m, metrics_snapshot& out);
};

}  // namespace stet::detail
