#pragma once
// What stet::server hides behind its pointer: listeners, workers, the count of
// open connections, and the stop sequence.

#include <stet/router.hpp>
#include <stet/server.hpp>
#include <stet/server_options.hpp>

#include "coro/offload_pool.hpp"
#include "log/access_log_sink.hpp"
#include "net/listener.hpp"
#include "net/worker.hpp"

#include <atomic>
#include <memory>
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

  void connection_closed() noexcept override;
  bool may_accept() noexcept override { return open_.load() < options_.max_connections; }
  void accepted() noexcept override { ++open_; }
  bool stopping() const noexcept override { return stopping_.load(); }

 private:
  start_error open_listeners();

  router routes_;
  server_options options_;
  std::unique_ptr<access_log_sink> log_sink_;  // outlives the workers that feed it
  // Outlives the workers too: a worker's thread ends only after every function
  // it offloaded returned.
  std::unique_ptr<offload_pool> offload_;
  std::vector<std::unique_ptr<worker>> workers_;
  // Per listen_options entry, its listeners: one, or one per worker with SO_REUSEPORT.
  std::vector<std::vector<std::unique_ptr<listener>>> listeners_;
  std::vector<std::uint16_t> ports_;  // per listen_options entry, as bound (0: unix)
  std::atomic<std::size_t> open_{0};
  std::atomic<bool> stopping_{false};
  bool started_ = false;
};

}  // namespace stet::detail
