#pragma once
/// @file
/// stet::server: listeners, worker threads and graceful stop.

#include <stet/router.hpp>
#include <stet/server_options.hpp>

#include <cstdint>
#include <memory>
#include <system_error>

namespace stet {

namespace detail {
class server_core;
}

/// An HTTP/1.1 server: one io_context per worker thread, connections handed to
/// workers round-robin by one acceptor (or one SO_REUSEPORT acceptor per worker).
/// The router is frozen when the server is built.
class server {
 public:
  /// A server for `routes` (a handle: routes added to a copy later are served too) with `options`.
  /// Nothing is bound until start().
  explicit server(router routes, server_options options = {});
  ~server();  ///< stops (gracefully) and joins the workers
  server(const server&) = delete;
  server& operator=(const server&) = delete;

  /// Binds, listens and starts the worker threads; returns at once. The error
  /// says why binding failed (e.g. the address is in use).
  std::error_code start();
  /// start(), then wait(). @throws std::system_error when start() fails.
  void run();
  /// Graceful stop: stop accepting, close idle connections, let in-flight requests
  /// finish until drain_timeout, then close the rest. Thread-safe; returns at once.
  void stop() noexcept;
  /// Blocks until every worker has finished.
  void wait();

  /// The bound port (useful after asking for port 0); 0 before start().
  std::uint16_t port() const noexcept;
  /// Connections open right now, over all workers.
  std::size_t open_connections() const noexcept;

 private:
  std::unique_ptr<detail::server_core> core_;
};

}  // namespace stet
