#pragma once
// What stet::server hides behind its pointer: listeners, workers, the count of
// open connections, and the stop sequence.

#include <stet/router.hpp>
#include <stet/server.hpp>
#include <stet/server_options.hpp>

#include "cache/cache_bus.hpp"
#include "coro/offload_pool.hpp"
#include "log/access_log_sink.hpp"
#include "net/accept/address_counts.hpp"
#include "net/accept/listener.hpp"
#include "net/server/worker.hpp"
#include "net/ws/topic_hub.hpp"
#include "request/proxy_trust.hpp"
#include "tls/tls_service.hpp"

#include <atomic>
#include <memory>
#include <mutex>
#include <vector>

namespace stet::detail {

class server_core final : public connection_host, public listener_host {
 public:
  server_core(const router& routes, server_options options);
  ~server_core();

  config_error start();
  void stop() noexcept;
  void wait();
  /// The port of the first TCP listener, or of listener `index`.
  std::uint16_t port() const noexcept;
  std::uint16_t port(std::size_t index) const noexcept;
  std::size_t open_connections() const noexcept { return open_.load(); }
  bool ready() const noexcept { return ready_.load(std::memory_order_acquire); }
  config_error reopen_access_log();
  /// server::publish().
  bool publish(std::string_view topic, std::string_view message, message_kind kind);
  /// Re-reads every TLS listener's files (server_tls.cpp); all or nothing.
  config_error reload_tls();

  void connection_closed() noexcept override;
  const proxy_trust& trusted_proxies() const noexcept override { return trust_; }
  bool may_accept() noexcept override;
  void accepted() noexcept override;
  admission admit(const endpoint& peer) noexcept override;
  void release(const endpoint& peer) noexcept override;
  bool stopping() const noexcept override { return stopping_.load(); }

 private:
  config_error expand_inherited_listeners();
  config_error open_listeners();
  void stop_accepting() noexcept;
  void make_room() noexcept;
  void evict_on(std::size_t worker_index, std::size_t workers_left, bool idle_too, steady::time_point newcomer,
                steady::time_point ripe_at) noexcept;
  void retry_room_at(steady::time_point ripe_at) noexcept;
  void resume_listeners() noexcept;
  /// Builds the TLS contexts of every TLS listener (server_tls.cpp).
  config_error open_tls();

  router routes_;
  server_options options_;
  proxy_trust trust_;                          // compiled from options_.trusted_proxies at start
  std::unique_ptr<access_log_sink> log_sink_;  // outlives the workers that feed it
  // Outlives the workers too: a worker's thread ends only after every function
  // it offloaded returned.
  std::unique_ptr<offload_pool> offload_;
  topic_hub hub_;                              // outlives the workers' topic states, which join it
  std::unique_ptr<cache_bus_link> cache_bus_;  // goes before hub_'s bus, which it sends on
  std::vector<std::unique_ptr<worker>> workers_;
  // Per listen_options entry, its listeners: one, or one per worker with SO_REUSEPORT.
  std::vector<std::vector<std::unique_ptr<listener>>> listeners_;
  std::vector<std::uint16_t> ports_;               // per listen_options entry, as bound (0: unix)
  std::vector<std::shared_ptr<tls_service>> tls_;  // per listen_options entry; null for plain HTTP
  std::shared_ptr<tls_stats> tls_stats_;
  std::mutex reload_mutex_;  // one reload at a time
  std::atomic<std::size_t> open_{0};
  std::atomic<bool> evicting_{false};  // one make_room() at a time
  std::atomic<bool> full_{false};      // nothing could be evicted: wait for a close
  std::atomic<std::size_t> next_evicting_{0};
  address_counts per_address_;
  std::atomic<bool> ready_{false};
  std::atomic<bool> stop_begun_{false};
  std::atomic<bool> stopping_{false};                              // accepting has stopped
  std::optional<asio::steady_timer> drain_delay_;                  // on the first worker's loop
  std::optional<asio::steady_timer> room_retry_;                   // on the first worker's loop
  steady::time_point room_retry_due_ = steady::time_point::max();  // room_retry_'s, read on its loop
  // A grace of 0 with nobody evictable (every connection busy) retries at this pace.
  static constexpr std::chrono::milliseconds min_room_retry{100};
  bool started_ = false;
};

}  // namespace stet::detail
