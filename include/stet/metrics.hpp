#pragma once
/// @file
/// Counters, phase timings and their Prometheus text exposition.

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
struct worker_counters;
struct metrics_access;
}  // namespace detail

/// The phases of one request whose durations stet records.
enum class phase : std::uint8_t {
  parse,   ///< first byte of the request read -> request complete
  handle,  ///< routing and the handler
  write,   ///< response queued -> written to the socket (shared by a pipelined batch)
};
/// How many phases there are (phase values are 0 .. phase_count - 1).
inline constexpr std::size_t phase_count = 3;
/// The phase's label in the metrics (`phase="..."`): "parse", "handler", "write".
std::string_view to_string(phase p) noexcept;

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

  /// Counts one duration (negative ones as 0) in its bucket and the sum; the
  /// owning thread only.
  void record(std::chrono::nanoseconds d) noexcept;
  /// The histogram's values at one moment, summable over histograms.
  struct snapshot {
    std::array<std::uint64_t, bounds_us.size() + 1> counts{};  ///< per bucket (not cumulative), +Inf last
    std::uint64_t count = 0;                                   ///< every duration recorded
    double sum_seconds = 0;                                    ///< their sum
    /// Adds `other`'s counts and sum to these.
    void add(const snapshot& other) noexcept;
  };
  /// The current values (any thread; relaxed loads, so buckets read a moment
  /// apart may disagree by the durations recorded meanwhile).
  snapshot read() const noexcept;

 private:
  std::array<std::atomic<std::uint64_t>, bounds_us.size() + 1> counts_{};
  std::atomic<std::uint64_t> sum_ns_{0};
};

/// One metric sample for a collector to report (cache counters and the like).
struct metric_sample {
  std::string_view name;    ///< e.g. "stet_cache_hits_total"
  std::string_view help;    ///< the family's HELP text
  std::string_view type;    ///< "counter" or "gauge"
  std::string_view labels;  ///< e.g. R"(cache="date")", may be empty
  double value = 0;         ///< the sample's value
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
  /// Adds families that samples cannot express (histograms): `append` writes
  /// whole families, HELP and TYPE lines included, in the exposition format.
  /// It runs on the thread that reads the metrics, after every other family.
  void add_text_collector(std::function<void(std::string&)> append);

 private:
  friend struct detail::metrics_access;  // each worker registers its counters while it runs

  mutable std::mutex mutex_;  // guards the lists below; never taken on the request path
  std::vector<const detail::worker_counters*> workers_;
  std::vector<std::function<void(std::vector<metric_sample>&)>> collectors_;
  std::vector<std::function<void(std::string&)>> text_collectors_;
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
