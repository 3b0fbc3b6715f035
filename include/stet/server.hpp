#pragma once
/// @file
/// stet::server: listeners, worker threads and graceful stop.

#include <stet/error.hpp>
#include <stet/router.hpp>
#include <stet/server_options.hpp>
#include <stet/websocket_message.hpp>

#include <cstdint>
#include <memory>
#include <string>
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
  explicit server(const router& routes, server_options options = {});
  ~server();  ///< stops (gracefully) and joins the workers
  server(const server&) = delete;
  server& operator=(const server&) = delete;

  /// Binds every listener and starts the worker threads; returns at once. On
  /// failure nothing is left bound and the error says what and why (e.g.
  /// "listen on 127.0.0.1:8080: Address already in use").
  config_error start();
  /// start(), then wait(). @throws std::system_error when start() fails.
  void run();
  /// Graceful stop, in stages: readiness turns false at once (ready(),
  /// server_options::readiness) while accepting and serving go on for
  /// drain_delay; then accepting stops, idle connections close, in-flight
  /// requests finish (answered with `Connection: close`) until drain_timeout;
  /// then the rest are closed. Thread-safe, returns at once; later calls do nothing.
  void stop() noexcept;
  /// Blocks until every worker has finished.
  void wait();

  /// The bound port of the first TCP listener (useful after asking for port
  /// 0); 0 before start() or when there is none.
  std::uint16_t port() const noexcept;
  /// The bound port of listener `index` (in server_options::listeners order);
  /// 0 for a unix socket, before start(), or past the end.
  std::uint16_t port(std::size_t index) const noexcept;
  /// Connections open right now, over all workers.
  std::size_t open_connections() const noexcept;
  /// Whether the server is started and no stop has begun (what a readiness
  /// probe reports; liveness stays true until the process exits).
  bool ready() const noexcept;
  /// Reopens the access log file by its path (after logrotate moved it away):
  /// lines written from then on go to the new file. Thread-safe. Nothing to do
  /// (no error) when the log is off or goes to standard output; on failure the
  /// old file is kept and the error says why.
  config_error reopen_access_log();

  /// Sends `message` to every WebSocket subscribed to `topic` (see
  /// websocket::subscribe()), on every worker: the frame is built once and
  /// shared, and delivered asynchronously (this returns at once). Whether any
  /// worker had subscribers. A worker whose mailbox is full misses it
  /// (server_options::websocket_mailbox_messages; counted in
  /// stet_websocket_mailbox_dropped_total). Thread-safe; nothing happens
  /// before start().
  /// @throws std::bad_alloc
  bool publish(std::string_view topic, std::string_view message, message_kind kind = message_kind::text);

  /// Re-reads the certificate, key, client CA and ticket key files of every
  /// TLS listener (listen_options::tls) and builds new contexts from them. New
  /// handshakes use the new contexts; connections already open keep theirs.
  /// All or nothing: when any file cannot be used (missing, unparsable, a key
  /// that does not match its certificate, an expired certificate) nothing is
  /// replaced and the error names the file and the reason. Thread-safe (e.g.
  /// from a SIGHUP handler thread); an error before start().
  config_error reload_tls();

 private:
  std::unique_ptr<detail::server_core> core_;
};

}  // namespace stet
