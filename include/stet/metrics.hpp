#pragma once
/// @file Counters, phase timings and their Prometheus text exposition.

#include <stet/response.hpp>

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace stet {

namespace detail {
struct memo_stats;
struct router_state;
}  // namespace detail

/// The phases of one request whose durations stet records.
enum class phase : std::uint8_t {
  parse,   ///< first byte of the request read -> request complete
  handle,  ///< routing and the handler
  write,   ///< response queued -> written to the socket (shared by a pipelined batch)
};
inline constexpr std::size_t phase_count = 3;
std::string_view to_string(phase p) noexcept;

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

/// Adds to a counter that only one thread writes: a plain load and store, no
/// locked instruction; readers on other threads see it through relaxed loads.
inline void single_writer_add(std::atomic<std::uint64_t>& c, std::uint64_t by = 1) noexcept {
  c.store(c.load(std::memory_order_relaxed) + by, std::memory_order_relaxed);
}

/// A histogram with fixed log-spaced buckets, written by one thread and read
/// by any (relaxed atomics: no lock, no read-modify-write on the hot path).
class latency_histogram {
 public:
  /// Upper bounds in microseconds; the last bucket is +Inf.
  static constexpr std::array<std::uint32_t, 16> bounds_us = {
      1, 2, 5, 10, 20, 50, 100, 200, 500, 1'000, 2'000, 5'000, 10'000, 100'000, 1'000'000, 10'000'000};

  void record(std::chrono::nanoseconds d) noexcept;
  struct snapshot {
    std::array<std::uint64_t, bounds_us.size() + 1> counts{};
    std::uint64_t count = 0;
    double sum_seconds = 0;
    void add(const snapshot& other) noexcept;
  };
  snapshot read() const noexcept;

 private:
  std::array<std::atomic<std::uint64_t>, bounds_us.size() + 1> counts_{};
  std::atomic<std::uint64_t> sum_ns_{0};
};

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

/// One metric sample for a collector to report (cache counters and the like).
struct metric_sample {
  std::string_view name;  ///< e.g. "stet_cache_hits_total"
  std::string_view help;
  std::string_view type;    ///< "counter" or "gauge"
  std::string_view labels;  ///< e.g. R"(cache="date")", may be empty
  double value = 0;
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
  /// Set by the worker before it attaches: its thread's memo and cache
  /// counters, and the router state it dispatches on (both outlive the
  /// attachment). metrics::text() reads them with relaxed loads.
  const detail::memo_stats* memo = nullptr;
  const detail::router_state* routes = nullptr;

  static void bump(std::atomic<std::uint64_t>& c, std::uint64_t by = 1) noexcept { single_writer_add(c, by); }
};

/// Everything a server counts, shared between the server (which writes) and a
/// metrics route (which reads). Create it first, give it to server_options, and
/// mount `handler()` at the path of your choice.
class metrics : public std::enable_shared_from_this<metrics> {
 public:
  /// Prometheus text exposition format 0.0.4 of every counter and histogram.
  std::string text() const;
  /// A response carrying text(), for a route of the user's choice:
  /// `routes.get("/-/metrics", [m](stet::request&) { return m->respond(); })`.
  response respond() const;

  /// Adds samples computed at read time (e.g. a cache's hit/miss counters).
  /// The collector runs on the thread that reads the metrics.
  void add_collector(std::function<void(std::vector<metric_sample>&)> collect);

  // Used by the server: each worker registers its counters while it runs.
  void attach(const worker_counters* c);
  void detach(const worker_counters* c);

 private:
  mutable std::mutex mutex_;  // guards the lists below; never taken on the request path
  std::vector<const worker_counters*> workers_;
  std::vector<std::function<void(std::vector<metric_sample>&)>> collectors_;
};

/// Receives span boundaries for requests and their phases. Install one in
/// server_options::tracer; with none installed, tracing costs one branch per request.
class tracer {
 public:
  virtual ~tracer() = default;
  /// A phase ran from `start` to `end` (steady clock). `req` is the request for
  /// parse and handler; null for write, which a pipelined batch shares.
  virtual void on_phase(const class request* req, phase p, std::chrono::steady_clock::time_point start,
                        std::chrono::steady_clock::time_point end) noexcept = 0;
};

}  // namespace stet
