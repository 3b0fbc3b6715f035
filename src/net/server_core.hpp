#pragma once
// What stet::server hides behind its pointer: listeners, workers, the count of
// open connections, and the stop sequence.

#include <stet/router.hpp>
#include <stet/server_options.hpp>

#include "log/access_log_sink.hpp"
#include "net/asio.hpp"
#include "net/worker.hpp"

#include <atomic>
#include <memory>
#include <system_error>
#include <vector>

namespace stet::detail {

class server_core final : public connection_host {
 public:
  server_core(router routes, server_options options);
  ~server_core();

  std::error_code start();
  void stop() noexcept;
  void wait();
  std::uint16_t port() const noexcept { return port_.load(); }
  std::size_t open_connections() const noexcept { return open_.load(); }

  /// Called by a worker whenever one of its connections closes.
  void connection_closed() noexcept override;

 private:
  // One acceptor and the workers it feeds: all of them (shared acceptor) or
  // just its own (SO_REUSEPORT).
  struct listener {
    explicit listener(asio::io_context& io) : acceptor(io) {}
    tcp::acceptor acceptor;
    std::vector<worker*> targets;
    std::size_t next = 0;
    tcp::endpoint peer;  // filled by the accept in flight
    std::atomic<bool> paused{false};
  };

  std::error_code open_listener(listener& l, const tcp::endpoint& at);
  void accept_next(listener& l);
  void on_accept_error(listener& l, const boost::system::error_code& ec);

  router routes_;
  server_options options_;
  std::unique_ptr<access_log_sink> log_sink_;  // outlives the workers that feed it
  std::vector<std::unique_ptr<worker>> workers_;
  std::vector<std::unique_ptr<listener>> listeners_;
  std::atomic<std::size_t> open_{0};
  std::atomic<std::uint16_t> port_{0};
  std::atomic<bool> stopping_{false};
  bool started_ = false;
};

}  // namespace stet::detail
