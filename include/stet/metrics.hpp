#pragma once
/// @file
/// Counters, phase timings and their Prometheus text exposition.

#include <stet/latency_histogram.hpp>
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
