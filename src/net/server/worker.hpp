#pragma once
// One worker = one thread running one io_context. It owns its connections'
// timeout lists, the Date/Server writer, and nothing another thread touches.

#include <stet/metrics.hpp>
#include <stet/router.hpp>
#include <stet/server_options.hpp>

#include "coro/frame_pool.hpp"
#include "counters/memo_stats.hpp"
#include "events/event_topics.hpp"
#include "http/response_writer.hpp"
#include "log/access_log.hpp"
#include "metrics/worker_counters.hpp"
#include "net/asio.hpp"
#include "net/http1/exchange.hpp"
#include "net/server/deadline_set.hpp"
#include "net/server/worker_executor.hpp"
#include "net/transport/transport.hpp"

#include <array>
#include <memory>
#include <optional>
#include <span>
#include <thread>
#include <unordered_set>

namespace stet::detail {

class connection;
class proxy_intake_base;
class proxy_trust;
class topic_hub;
class websocket_worker;

/// Who a worker tells when one of its connections closes (the server counts
/// connections across workers); a test harness may stand in for the server.
class connection_host {
 public:
  virtual void connection_closed() noexcept = 0;
  /// server_options::trusted_proxies, compiled once at start (immutable, shared
  /// by every worker); by default nobody.
  virtual const proxy_trust& trusted_proxies() const noexcept;

  /// What admit() decided about a new connection's address.
  enum class admission : std::uint8_t { refused, admitted, counted };
  /// Whether a connection from `peer` may open under
  /// max_connections_per_address; `counted` ones are release()d at close.
  /// By default every one is admitted uncounted.
  virtual admission admit(const endpoint& peer) noexcept;
  virtual void release(const endpoint& peer) noexcept;

 protected:
  ~connection_host() = default;
};

class worker final : public event_topics {
 public:
  /// `offload`: the server's blocking pool for stet::offload (null: offloaded
  /// functions run inline, as in tests that turn a worker by hand).
  worker(connection_host& host, const router& routes, const server_options& options, access_log_sink* log_sink,
         offload_pool* offload = nullptr);
  worker(const worker&) = delete;
  worker& operator=(const worker&) = delete;
  ~worker();

  asio::io_context& io() noexcept { return io_; }
  const router& routes() const noexcept { return routes_; }
  const server_options& options() const noexcept { return options_; }
  response_writer& writer() noexcept { return writer_; }
  bool draining() const noexcept { return draining_; }
  /// Whom requests trust as proxies; null when nobody (the default).
  const proxy_trust* trust() const noexcept { return trust_; }
  /// Records one exchange in the access log (sampled first; no-op when off).
  void log_access(const access_record& r);
  bool logging() const noexcept { return log_.enabled(); }
  worker_counters& counters() noexcept { return counters_; }
  /// Whether connections measure phase durations (metrics, tracer or Server-Timing need them).
  bool timing() const noexcept { return timing_; }
  stet::tracer* tracer() const noexcept { return options_.tracer.get(); }
  /// The spare exchanges (buffers, parser, request) connections take while busy.
  exchange_pool& exchanges() noexcept { return exchanges_; }
  /// Where lingering connections read what they throw away: shared, since a
  /// read's bytes are never looked at.
  std::span<char> discard_buffer() noexcept { return {discard_.get(), discard_bytes}; }
  /// Hands a server_error to server_options::error_reporter, if any.
  void report_error(std::string_view where, std::error_code code, std::string_view detail) const;

  void start_thread();
  void join();
  /// Makes the calling thread this worker's: its memo counters, coroutine
  /// frame pool, executor and event topics (start_thread() does; a test turning
  /// the loop by hand may). Undone by leave_thread().
  void enter_thread() noexcept;
  static void leave_thread() noexcept;

  /// Runs on this worker's thread: starts a connection over `stream`.
  void adopt(std::unique_ptr<transport> stream, const endpoint& peer);
  /// Runs on this worker's thread: graceful stop of every connection.
  void drain();
  /// A PROXY protocol intake (proxy_intake.hpp) began, or ended: `adopted`
  /// when its connection was handed to adopt(), else it closed.
  void intake_started(proxy_intake_base& intake);
  void intake_finished(proxy_intake_base& intake, bool adopted) noexcept;

  /// Puts `hook` on the `kind` list, due `kind`'s timeout after `now`.
  void arm(deadline_hook& hook, timeout_kind kind, steady::time_point now) { deadlines_.arm(hook, kind, now); }
  static void disarm(deadline_hook& hook) noexcept { deadline_set::disarm(hook); }
  /// Every timeout of this worker's connections and WebSocket sessions.
  deadline_set& deadlines() noexcept { return deadlines_; }
  /// A connection closed: forget it.
  void closed(connection& c) noexcept;
  /// Counts a connection this worker closed on its own, by why.
  void count_close(close_reason r) noexcept {
    single_writer_add(counters_.connections_closed[static_cast<std::size_t>(r)]);
  }
  /// At max_connections: closes the connection that has waited longest
  /// without sending a complete request, else the oldest idle keep-alive
  /// (deadline_target::evictable()); idle ones only when `idle_too`; only
  /// one already waiting at `newcomer` (the time the new client arrived, so
  /// that it never makes room for itself). False when none qualifies; then
  /// `*ripe_at`, if given, is lowered to when the oldest one still within
  /// eviction_grace will have waited it out.
  bool evict_one(bool idle_too = true, steady::time_point newcomer = steady::time_point::max(),
                 steady::time_point* ripe_at = nullptr) noexcept;

  /// The WebSocket sessions' state (made on first use; see websocket_worker.hpp).
  websocket_worker& websockets();
  /// The hub publishes go through across workers (set by the server before start; none in tests).
  void set_websocket_hub(topic_hub* hub) noexcept { websocket_hub_ = hub; }
  // event_topics: an event stream's subscriptions live in the same topic
  // state as the WebSocket sessions' (made on first use too).
  void subscribe(std::string_view topic, const std::shared_ptr<event_queue>& q, std::size_t index) override;
  void unsubscribe_all(event_queue& q) noexcept override;
  void replay(std::string_view topic, std::string_view last_id, std::size_t limit, bus::replay_done done) override;
  bool publish(std::string_view topic, std::string_view message) override;
  /// `c` handed its transport to a WebSocket session: forget it, still counted open.
  void handed_over(connection& c) noexcept;
  /// A WebSocket session ended: its connection is closed now.
  void websocket_closed() noexcept;

 private:
  void finish_drain_if_idle();

  static constexpr std::size_t discard_bytes = 16 * 1024;

  connection_host& host_;
  const router& routes_;
  const server_options& options_;
  // One thread runs it. BOOST_ASIO_CONCURRENCY_HINT_UNSAFE_IO (no
  // per-descriptor locks, 130 instructions less per /plaintext request) was
  // tried and reverted: it changes the order in which the streamed-body and
  // coroutine tests see their completions (7 of them fail); not yet understood.
  asio::io_context io_{1};
  worker_executor tasks_;  // where suspended coroutine handlers resume
  std::optional<asio::executor_work_guard<asio::io_context::executor_type>> keep_running_;
  std::thread thread_;
  response_writer writer_;

  deadline_set deadlines_;
  asio::steady_timer drain_deadline_;
  access_log log_;
  asio::steady_timer log_flush_;
  bool log_flush_armed_ = false;
  worker_counters counters_;
  memo_stats memo_;    // the worker thread's memo and cache counters (see install_thread_memo_stats)
  frame_pool frames_;  // coroutine frames of this worker's handlers
  bool timing_;
  const proxy_trust* trust_;
  bool draining_ = false;
  exchange_pool exchanges_;
  std::unique_ptr<char[]> discard_;

  std::unordered_set<connection*> connections_;
  std::unordered_set<proxy_intake_base*> intakes_;
  topic_hub* websocket_hub_ = nullptr;
  std::unique_ptr<websocket_worker> websockets_;  // last: its sessions refer to the rest
};

}  // namespace stet::detail
