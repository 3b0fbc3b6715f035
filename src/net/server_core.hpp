#pragma once
// What stet::server hides behind its pointer: listeners, workers, the count of
// open connections, and the stop sequence.

#include <stet/router.hpp>
#include <stet/server.hpp>
#include <stet/server_options.hpp>

#include "log/access_log_sink.hpp"
#include "net/listener.hpp"
#include "net/worker.hpp"
#include "tls/tls_service.hpp"

#include <atomic>
#include <memory>
#include <mutex>
#include <vector>

namespace stet::detail {

class server_core final : public connection_host, public listener_host {
 public:
  server_core(router routes, server_options options);
  ~server_core();

  start_error start();
  void stop() noexcept;
  void wait();
  /// The port of the first TCP listener, or of listener `index`.
  std::uint16_t port() const noexcept;
  std::uint16_t port(std::size_t index) const noexcept;
  std::size_t open_connections() const noexcept { return open_.load(); }
  /// Re-reads every TLS listener's files (server_tls.cpp); all or nothing.
  start_error reload_tls();

  void connection_closed() noexcept override;
  bool may_accept() noexcept override { return open_.load() < options_.max_connections; }
  void accepted() noexcept override { ++open_; }
  bool stopping() const noexcept override { return stopping_.load(); }

 private:
  start_error open_listeners();
  /// Builds the TLS contexts of every TLS listener (server_tls.cpp).
  start_error open_tls();

  router routes_;
  server_options options_;
  std::unique_ptr<access_log_sink> log_sink_;  // outlives the workers that feed it
  std::vector<std::unique_ptr<worker>> workers_;
  // Per listen_options entry, its listeners: one, or one per worker with SO_REUSEPORT.
  std::vector<std::vector<std::unique_ptr<listener>>> listeners_;
  std::vector<std::uint16_t> ports_;  // per listen_options entry, as bound (0: unix)
  std::vector<std::shared_ptr<tls_service>> tls_;  // per listen_options entry; null for plain HTTP
  std::shared_ptr<tls_stats> tls_stats_;
  std::mutex reload_mutex_;  // one reload at a time
  std::atomic<std::size_t> open_{0};
  std::atomic<bool> stopping_{false};
  bool started_ = false;
};

}  // namespace stet::detail
