#pragma once
// One listening socket (TCP or unix-domain) and the workers it hands its
// connections to, round-robin: the accept loop and nothing more.

#include <stet/endpoint.hpp>
#include <stet/server_options.hpp>

#include "net/accept/native_accept.hpp"
#include "net/asio.hpp"

#include <boost/asio/local/stream_protocol.hpp>

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

namespace stet::detail {

class worker;
class tls_service;
using local = asio::local::stream_protocol;

/// A parsed listen_options::address.
struct listen_address {
  std::optional<tcp::endpoint> ip;  ///< set for "HOST:PORT" and "[V6]:PORT"
  std::string unix_path;            ///< set for "unix:PATH"
  int inherited_fd = -1;            ///< set for "fd:N": a listening socket this process was given
};

/// Reads "HOST:PORT", "[V6]:PORT", "unix:PATH" or "fd:N"; nullopt with `why`
/// set when it is none of them.
std::optional<listen_address> parse_listen_address(std::string_view text, std::string& why);

/// What a listener needs from the server that owns it.
class listener_host {
 public:
  /// Whether a connection may be accepted now (not stopping, under
  /// max_connections, or at it with room to be made).
  virtual bool may_accept() noexcept = 0;
  /// A connection was accepted and is on its way to a worker; past the limit
  /// the host makes room for it.
  virtual void accepted() noexcept = 0;
  virtual bool stopping() const noexcept = 0;

 protected:
  ~listener_host() = default;
};

class listener {
 public:
  /// Accepts on `io` (the first target's, or its own worker's with SO_REUSEPORT);
  /// with `tls`, every connection is wrapped in a TLS session from its current context.
  listener(listener_host& host, const listen_options& options, std::vector<worker*> targets,
           std::shared_ptr<tls_service> tls = nullptr);
  listener(const listener&) = delete;
  listener& operator=(const listener&) = delete;
  ~listener();

  /// Binds and listens; the error message names the address and the reason.
  std::error_code open(const listen_address& at, bool reuse_port, int backlog, std::string& why);
  /// Takes over the listening socket `fd` (TCP or unix, as systemd passes it).
  std::error_code adopt_inherited(int fd, std::string& why);
  /// The next accept (or, at the connection limit, a pause until resume()).
  void accept_next();
  /// After a connection closed: accepts again if paused (thread-safe).
  void resume();
  /// Stops accepting (thread-safe); a unix socket's file is removed.
  void close();

  std::uint16_t port() const noexcept;
  const listen_options& options() const noexcept { return options_; }

 private:
  template <class Acceptor, class Peer>
  void accept_on(Acceptor& acceptor, Peer& peer);
  void on_accept_error(const boost::system::error_code& ec);
  asio::io_context& io() noexcept;
  /// Sets what accepted sockets inherit, and moves the listening descriptor
  /// to where native_accept takes connections from it.
  void prepare_listening();
  /// Whether a connection may be accepted now; else accepting pauses.
  bool accepting();
#if STET_SOCKET_READ_ON_REACTOR
  static void on_accepted(void* self, const boost::system::error_code& ec, int fd, const sockaddr_storage& peer);
  template <class Protocol>
  void deliver(worker& target, int fd, const endpoint& from);

  std::optional<tcp::socket> tcp_listening_;  // the descriptor native_accept accepts on
  std::optional<local::socket> unix_listening_;
  std::shared_ptr<native_accept> accept_op_;
  bool v6_ = false;  // the listening socket's family, which accepted sockets share
#endif
  bool inherits_options_ = false;  // accepted TCP sockets inherit TCP_NODELAY and TCP_INQ

  listener_host& host_;
  listen_options options_;
  std::vector<worker*> targets_;
  std::shared_ptr<tls_service> tls_;
  std::size_t next_ = 0;
  std::optional<tcp::acceptor> tcp_;
  std::optional<local::acceptor> unix_;
  tcp::endpoint tcp_peer_;  // filled by the accept in flight
  local::endpoint unix_peer_;
  std::string unix_path_;  // the socket file this listener created, removed at close
  std::uint64_t unix_inode_ = 0;
  std::atomic<bool> paused_{false};
};

}  // namespace stet::detail
