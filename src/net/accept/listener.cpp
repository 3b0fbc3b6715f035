#include "net/accept/listener.hpp"

#include "net/accept/proxy_intake.hpp"
#include "net/server/worker.hpp"
#include "net/transport/socket_transport.hpp"
#include "net/transport/tls_transport.hpp"
#include "tls/tls_service.hpp"

#include <boost/asio/ip/v6_only.hpp>

#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <charconv>
#include <cstring>
#include <memory>

namespace stet::detail {
namespace {

using reuse_port_option = asio::detail::socket_option::boolean<SOL_SOCKET, SO_REUSEPORT>;

std::optional<std::uint16_t> parse_port(std::string_view text) {
  unsigned value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || value > 65535) return std::nullopt;
  return static_cast<std::uint16_t>(value);
}

endpoint to_endpoint(const tcp::endpoint& e) noexcept {
  const asio::ip::address a = e.address();
  if (a.is_v4()) return endpoint::v4(a.to_v4().to_bytes(), e.port());
  return endpoint::v6(a.to_v6().to_bytes(), e.port());
}

// Options every socket accepted from `fd` inherits (Linux copies them from
// the listening socket): no setsockopt per connection. TCP_NODELAY because
// an answer is written whole, and Nagle would hold a second write back for
// the client's delayed ACK; TCP_INQ for socket_read. True when both are on.
bool set_inherited_options(int fd) noexcept {
  const int on = 1;
  const bool nodelay = ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on) == 0;
  return ::setsockopt(fd, IPPROTO_TCP, TCP_INQ, &on, sizeof on) == 0 && nodelay;
}

std::uint64_t inode_of(const std::string& path) noexcept {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0 ? static_cast<std::uint64_t>(st.st_ino) : 0;
}

// A socket file left by a run that did not remove it (a crash) refuses every
// bind; one a live server listens on must not be taken over. Connecting tells
// them apart.
std::error_code clear_stale_socket(const std::string& path, std::string& why) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return {};
  if (!S_ISSOCK(st.st_mode)) {
    why = "exists and is not a socket";
    return std::make_error_code(std::errc::file_exists);
  }
  asio::io_context probe_io;
  local::socket probe(probe_io);
  boost::system::error_code ec;
  probe.connect(local::endpoint(path), ec);
  if (!ec) {
    why = "another process is listening on it";
    return std::make_error_code(std::errc::address_in_use);
  }
  if (::unlink(path.c_str()) != 0) {
    why = "cannot remove the stale socket file";
    return {errno, std::system_category()};
  }
  return {};
}

}  // namespace

std::optional<listen_address> parse_listen_address(std::string_view text, std::string& why) {
  listen_address at;
  if (text.substr(0, 3) == "fd:") {
    const std::optional<std::uint16_t> fd = parse_port(text.substr(3));
    if (!fd || *fd < 3) {
      why = "an inherited socket is fd:N with N from 3 (as systemd passes them)";
      return std::nullopt;
    }
    at.inherited_fd = *fd;
    return at;
  }
  if (text.substr(0, 5) == "unix:") {
    at.unix_path = text.substr(5);
    if (at.unix_path.empty() || at.unix_path.size() >= sizeof(sockaddr_un::sun_path)) {
      why = "a unix socket path must be 1 to 107 bytes";
      return std::nullopt;
    }
    return at;
  }
  std::string_view host;
  std::string_view port;
  if (!text.empty() && text.front() == '[') {
    const std::size_t close = text.find(']');
    if (close == std::string_view::npos || text.substr(close + 1, 1) != ":") {
      why = "expected [IPV6]:PORT";
      return std::nullopt;
    }
    host = text.substr(1, close - 1);
    port = text.substr(close + 2);
  } else {
    const std::size_t colon = text.rfind(':');
    if (colon == std::string_view::npos) {
      why = "expected HOST:PORT, [IPV6]:PORT or unix:PATH";
      return std::nullopt;
    }
    host = text.substr(0, colon);
    port = text.substr(colon + 1);
  }
  const std::optional<std::uint16_t> number = parse_port(port);
  if (!number) {
    why = "the port must be a number from 0 to 65535";
    return std::nullopt;
  }
  boost::system::error_code ec;
  const asio::ip::address address = asio::ip::make_address(std::string(host), ec);
  if (ec || (text.front() == '[') != address.is_v6()) {
    why = "the host must be an IPv4 address, or an IPv6 address in brackets";
    return std::nullopt;
  }
  at.ip = tcp::endpoint(address, *number);
  return at;
}

listener::listener(listener_host& host, const listen_options& options, std::vector<worker*> targets,
                   std::shared_ptr<tls_service> tls)
    : host_(host), options_(options), targets_(std::move(targets)), tls_(std::move(tls)) {}

listener::~listener() {
  if (!unix_path_.empty() && inode_of(unix_path_) == unix_inode_) ::unlink(unix_path_.c_str());
}

asio::io_context& listener::io() noexcept { return targets_.front()->io(); }

std::error_code listener::open(const listen_address& at, bool reuse_port, int backlog, std::string& why) {
  boost::system::error_code ec;
  if (at.inherited_fd >= 0) return adopt_inherited(at.inherited_fd, why);
  if (at.ip) {
    tcp::acceptor& a = tcp_.emplace(io());
    a.open(at.ip->protocol(), ec);
    // SO_REUSEADDR only lets a restart bind past TIME_WAIT; on Linux it never
    // lets two listeners share a port. Sharing takes the explicit reuse_port.
    if (!ec) a.set_option(tcp::acceptor::reuse_address(true), ec);
    if (!ec && reuse_port) a.set_option(reuse_port_option(true), ec);
    // "[::]" takes IPv4 clients too, whatever the system's default.
    if (!ec && at.ip->address().is_v6()) a.set_option(asio::ip::v6_only(false), ec);
    if (!ec) a.bind(*at.ip, ec);
    // Before listen(): a client that connects at once inherits them too.
    if (!ec) inherits_options_ = set_inherited_options(a.native_handle());
    if (!ec) a.listen(backlog, ec);
    if (!ec) prepare_listening();
    if (ec) why = ec.message();
    return ec;
  }
  if (const std::error_code stale = clear_stale_socket(at.unix_path, why)) return stale;
  local::acceptor& a = unix_.emplace(io());
  a.open(local(), ec);
  if (!ec) a.bind(local::endpoint(at.unix_path), ec);
  if (ec) {
    why = ec.message();
    return ec;
  }
  unix_path_ = at.unix_path;
  unix_inode_ = inode_of(unix_path_);
  if (::chmod(unix_path_.c_str(), options_.unix_mode) != 0) {
    why = "cannot set its mode";
    return {errno, std::system_category()};
  }
  a.listen(backlog, ec);
  if (!ec) prepare_listening();
  if (ec) why = ec.message();
  return ec;
}

// Whoever passed the socket (systemd) bound it and keeps a copy: it is checked,
// never re-bound, and a unix socket's file is left alone at close.
std::error_code listener::adopt_inherited(int fd, std::string& why) {
  int listening = 0;
  int type = 0;
  socklen_t length = sizeof listening;
  if (::getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &length) != 0 || listening == 0) {
    why = "not a listening socket";
    return errno == EBADF ? std::error_code(EBADF, std::system_category())
                          : std::make_error_code(std::errc::not_a_socket);
  }
  length = sizeof type;
  sockaddr_storage bound{};
  socklen_t bound_length = sizeof bound;
  if (::getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &length) != 0 || type != SOCK_STREAM ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &bound_length) != 0) {
    why = "not a stream socket";
    return std::make_error_code(std::errc::wrong_protocol_type);
  }
  ::fcntl(fd, F_SETFD, FD_CLOEXEC);  // passed without it; children of this process need not hold the port
  boost::system::error_code ec;
  switch (bound.ss_family) {
    case AF_INET: tcp_.emplace(io()).assign(tcp::v4(), fd, ec); break;
    case AF_INET6: tcp_.emplace(io()).assign(tcp::v6(), fd, ec); break;
    case AF_UNIX: unix_.emplace(io()).assign(local(), fd, ec); break;
    default:
      why = "neither a TCP nor a unix-domain socket";
      return std::make_error_code(std::errc::address_family_not_supported);
  }
  if (ec) {
    why = ec.message();
    return ec;
  }
  // Connections queued before this process took the socket did not inherit
  // what is set now: those sockets get TCP_NODELAY each (inherits_options_ stays false).
  if (tcp_) set_inherited_options(fd);
  prepare_listening();
  return ec;
}

std::uint16_t listener::port() const noexcept {
  boost::system::error_code ec;
#if STET_SOCKET_READ_ON_REACTOR
  if (tcp_listening_) return tcp_listening_->local_endpoint(ec).port();
#endif
  return tcp_ ? tcp_->local_endpoint(ec).port() : 0;
}

bool listener::accepting() {
  if (host_.stopping()) return false;
  if (!host_.may_accept()) {
    paused_ = true;
    if (!host_.may_accept() || !paused_.exchange(false)) return false;
  }
  return true;
}

#if STET_SOCKET_READ_ON_REACTOR

void listener::prepare_listening() {
  boost::system::error_code ignored;
  if (tcp_) {
    const tcp::endpoint bound = tcp_->local_endpoint(ignored);
    v6_ = bound.protocol() == tcp::v6();
    tcp_listening_.emplace(io()).assign(bound.protocol(), tcp_->release(ignored), ignored);
    tcp_.reset();
  } else {
    unix_listening_.emplace(io()).assign(local(), unix_->release(ignored), ignored);
    unix_.reset();
  }
  // accept4 runs inside the reactor: it must fail with EAGAIN, never wait.
  if (tcp_listening_) tcp_listening_->non_blocking(true, ignored);
  if (unix_listening_) unix_listening_->non_blocking(true, ignored);
  accept_op_ = std::make_shared<native_accept>(this, &listener::on_accepted);
}

void listener::accept_next() {
  if (!accepting()) return;
  if (tcp_listening_) {
    native_accept::start(*tcp_listening_, accept_op_);
  } else {
    native_accept::start(*unix_listening_, accept_op_);
  }
}

// Each socket goes to the next worker. On the acceptor's own worker it is
// registered and its connection started right here, in this handler, so its
// first read may wait for epoll untried (socket_read::assume); another
// worker registers it on its own thread for the same reason.
void listener::on_accepted(void* self, const boost::system::error_code& ec, int fd, const sockaddr_storage& peer) {
  listener& l = *static_cast<listener*>(self);
  if (ec == asio::error::operation_aborted || l.host_.stopping()) {
    if (fd >= 0) ::close(fd);
    return;
  }
  if (ec) {
    l.on_accept_error(ec);
    return;
  }
  l.host_.accepted();
  worker& target = *l.targets_[l.next_++ % l.targets_.size()];
  endpoint from = endpoint::unix_socket();
  if (peer.ss_family == AF_INET || peer.ss_family == AF_INET6) {
    tcp::endpoint e;
    std::memcpy(e.data(), &peer, peer.ss_family == AF_INET ? sizeof(sockaddr_in) : sizeof(sockaddr_in6));
    from = to_endpoint(e);
  }
  const bool is_tcp = l.tcp_listening_.has_value();
  if (&target.io() == &l.io()) {
    if (is_tcp)
      l.deliver<tcp>(target, fd, from);
    else
      l.deliver<local>(target, fd, from);
  } else {
    asio::post(target.io(), [&l, &target, fd, from, is_tcp] {
      if (is_tcp)
        l.deliver<tcp>(target, fd, from);
      else
        l.deliver<local>(target, fd, from);
    });
  }
  l.accept_next();
}

// On the target worker's thread. A socket the reactor refused to register is
// handed over closed: its connection's first read fails and closes it, counted.
template <class Protocol>
void listener::deliver(worker& target, int fd, const endpoint& from) {
  typename Protocol::socket s(target.io());
  boost::system::error_code ec;
  if constexpr (std::is_same_v<Protocol, tcp>) {
    assign_accepted(s, v6_ ? tcp::v6() : tcp::v4(), fd, ec);
    if (!ec && !inherits_options_) s.set_option(tcp::no_delay(true), ec);
  } else {
    assign_accepted(s, local(), fd, ec);
  }
  if (ec && !s.is_open()) ::close(fd);
  if (options_.proxy_protocol) {
    start_proxy_intake(target, std::move(s), from, tls_.get());
    return;
  }
  // The first read need not be tried: nothing consumed the socket's first
  // readiness since it was registered (the intake above does consume it).
  const accepted_as facts{std::is_same_v<Protocol, tcp> && inherits_options_, !ec};
  target.adopt(secured(std::make_unique<socket_transport<Protocol>>(std::move(s), facts), tls_.get(), target.io()),
               from);
}

#else

void listener::prepare_listening() {}

void listener::accept_next() {
  if (tcp_) {
    accept_on(*tcp_, tcp_peer_);
  } else {
    accept_on(*unix_, unix_peer_);
  }
}

#endif

// Each socket is accepted straight into the next worker's io_context and
// posted to it; the worker adopts it on its own thread. At max_connections one
// more is accepted and a worker closes a connection that makes nobody wait to
// make room for it; only when none can go does accepting pause (clients wait
// in the backlog) until a connection closes.
template <class Acceptor, class Peer>
void listener::accept_on(Acceptor& acceptor, Peer& peer) {
  if (!accepting()) return;
  worker& target = *targets_[next_++ % targets_.size()];
  acceptor.async_accept(
      target.io(), peer,
      [this, &target](const boost::system::error_code& ec, typename Acceptor::protocol_type::socket socket) {
        if (ec == asio::error::operation_aborted || host_.stopping()) return;
        if (ec) {
          on_accept_error(ec);
          return;
        }
        host_.accepted();
        if constexpr (std::is_same_v<Peer, tcp::endpoint>) {
          asio::post(target.io(), [&target, s = std::move(socket), from = tcp_peer_, proxied = options_.proxy_protocol,
                                   tls = tls_.get()]() mutable {
            boost::system::error_code ignored;
            s.set_option(tcp::no_delay(true), ignored);
            if (proxied) {
              start_proxy_intake(target, std::move(s), to_endpoint(from), tls);
            } else {
              target.adopt(secured(std::make_unique<tcp_transport>(std::move(s)), tls, target.io()), to_endpoint(from));
            }
          });
        } else {
          asio::post(target.io(),
                     [&target, s = std::move(socket), proxied = options_.proxy_protocol, tls = tls_.get()]() mutable {
                       if (proxied) {
                         start_proxy_intake(target, std::move(s), endpoint::unix_socket(), tls);
                       } else {
                         target.adopt(secured(std::make_unique<unix_transport>(std::move(s)), tls, target.io()),
                                      endpoint::unix_socket());
                       }
                     });
        }
        accept_next();
      });
}

// Out of descriptors (or another transient failure): back off briefly rather
// than spin on accept().
void listener::on_accept_error(const boost::system::error_code& ec) {
  const std::string reason = ec.message();
  targets_.front()->report_error("accept", ec, reason);
  auto timer = std::make_shared<asio::steady_timer>(io(), std::chrono::milliseconds(50));
  timer->async_wait([this, timer](const boost::system::error_code& wait_ec) {
    if (!wait_ec) accept_next();
  });
}

void listener::resume() {
  if (paused_.exchange(false)) asio::post(io(), [this] { accept_next(); });
}

void listener::close() {
  asio::post(io(), [this] {
    boost::system::error_code ignored;
    if (tcp_) tcp_->close(ignored);
    if (unix_) unix_->close(ignored);
#if STET_SOCKET_READ_ON_REACTOR
    if (tcp_listening_) tcp_listening_->close(ignored);
    if (unix_listening_) unix_listening_->close(ignored);
#endif
  });
}

}  // namespace stet::detail
