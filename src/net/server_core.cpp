#include "net/server_core.hpp"

#include <stet/server.hpp>

#include "net/socket_transport.hpp"
#include "route/router_access.hpp"
#include "route/state.hpp"

#include <thread>

namespace stet::detail {
namespace {

using reuse_port = asio::detail::socket_option::boolean<SOL_SOCKET, SO_REUSEPORT>;

endpoint to_endpoint(const tcp::endpoint& e) noexcept {
  const asio::ip::address a = e.address();
  if (a.is_v4()) return endpoint::v4(a.to_v4().to_bytes(), e.port());
  return endpoint::v6(a.to_v6().to_bytes(), e.port());
}

// Runs on the worker's thread.
void adopt_tcp(worker& w, tcp::socket socket, const tcp::endpoint& peer) {
  boost::system::error_code ignored;
  socket.set_option(tcp::no_delay(true), ignored);
  w.adopt(std::make_unique<tcp_transport>(std::move(socket)), to_endpoint(peer));
}

}  // namespace

server_core::server_core(router routes, server_options options)
    : routes_(std::move(routes)), options_(std::move(options)) {
  if (options_.threads == 0) options_.threads = std::max(1u, std::thread::hardware_concurrency());
  // One reporter for the embedder to set: handler failures go to it too,
  // unless the router was given its own.
  if (options_.error_reporter && !router_access::state(routes_).report) {
    routes_.on_error([report = options_.error_reporter](std::string_view what) {
      report(server_error{"handler", {}, what});
    });
  }
}

server_core::~server_core() {
  stop();
  wait();
}

std::error_code server_core::open_listener(listener& l, const tcp::endpoint& at) {
  boost::system::error_code ec;
  l.acceptor.open(at.protocol(), ec);
  // SO_REUSEADDR only lets a restart bind past TIME_WAIT; on Linux it never lets
  // two listeners share a port. Sharing takes the explicit reuse_port option.
  if (!ec) l.acceptor.set_option(tcp::acceptor::reuse_address(true), ec);
  if (!ec && options_.reuse_port) l.acceptor.set_option(reuse_port(true), ec);
  if (!ec) l.acceptor.bind(at, ec);
  if (!ec) l.acceptor.listen(options_.backlog, ec);
  return ec;
}

std::error_code server_core::start() {
  if (started_) return std::make_error_code(std::errc::operation_in_progress);
  boost::system::error_code ec;
  const asio::ip::address address = asio::ip::make_address(options_.host, ec);
  if (ec) return ec;

  if (options_.access_log.enabled) {
    log_sink_ = std::make_unique<access_log_sink>(options_.access_log.path);
    if (const std::error_code open_error = log_sink_->open_error()) {
      log_sink_.reset();
      return open_error;
    }
  }
  for (unsigned i = 0; i < options_.threads; ++i) {
    workers_.push_back(std::make_unique<worker>(*this, routes_, options_, log_sink_.get()));
  }
  std::uint16_t port = options_.port;
  const std::size_t listener_count = options_.reuse_port ? workers_.size() : 1;
  for (std::size_t i = 0; i < listener_count; ++i) {
    auto l = std::make_unique<listener>(workers_[i]->io());
    if (options_.reuse_port) {
      l->targets.push_back(workers_[i].get());
    } else {
      for (auto& w : workers_) l->targets.push_back(w.get());
    }
    if (std::error_code failed = open_listener(*l, tcp::endpoint(address, port))) {
      listeners_.clear();
      workers_.clear();
      return failed;
    }
    port = l->acceptor.local_endpoint().port();  // later SO_REUSEPORT listeners join the same port
    listeners_.push_back(std::move(l));
  }
  port_ = port;
  started_ = true;
  for (auto& l : listeners_) accept_next(*l);
  for (auto& w : workers_) w->start_thread();
  return {};
}

// The acceptor hands each socket to the next worker's io_context; the worker
// adopts it on its own thread. At max_connections accepting pauses (clients
// wait in the backlog) until a connection closes.
void server_core::accept_next(listener& l) {
  if (stopping_) return;
  if (open_.load() >= options_.max_connections) {
    l.paused = true;
    if (open_.load() >= options_.max_connections || !l.paused.exchange(false)) return;
  }
  worker& target = *l.targets[l.next++ % l.targets.size()];
  l.acceptor.async_accept(target.io(), l.peer, [this, &l, &target](const boost::system::error_code& ec, tcp::socket s) {
    if (ec == asio::error::operation_aborted || stopping_) return;
    if (ec) {
      on_accept_error(l, ec);
      return;
    }
    ++open_;
    asio::post(target.io(), [&target, socket = std::move(s), peer = l.peer]() mutable {
      adopt_tcp(target, std::move(socket), peer);
    });
    accept_next(l);
  });
}

// Out of descriptors (or another transient failure): back off briefly rather
// than spin on accept().
void server_core::on_accept_error(listener& l, const boost::system::error_code& ec) {
  const std::string reason = ec.message();
  l.targets.front()->report_error("accept", ec, reason);
  auto timer = std::make_shared<asio::steady_timer>(l.acceptor.get_executor(), std::chrono::milliseconds(50));
  timer->async_wait([this, &l, timer](const boost::system::error_code& wait_ec) {
    if (!wait_ec) accept_next(l);
  });
}

void server_core::connection_closed() noexcept {
  --open_;
  for (auto& l : listeners_) {
    if (l->paused.exchange(false)) {
      listener* paused = l.get();
      asio::post(l->acceptor.get_executor(), [this, paused] { accept_next(*paused); });
    }
  }
}

void server_core::stop() noexcept {
  if (!started_ || stopping_.exchange(true)) return;
  for (auto& l : listeners_) {
    listener* each = l.get();
    asio::post(l->acceptor.get_executor(), [each] {
      boost::system::error_code ignored;
      each->acceptor.close(ignored);
    });
  }
  for (auto& w : workers_) {
    worker* each = w.get();
    asio::post(each->io(), [each] { each->drain(); });
  }
}

void server_core::wait() {
  for (auto& w : workers_) w->join();
}

}  // namespace stet::detail

namespace stet {

server::server(router routes, server_options options)
    : core_(std::make_unique<detail::server_core>(std::move(routes), std::move(options))) {}

server::~server() = default;

std::error_code server::start() { return core_->start(); }

void server::run() {
  if (std::error_code ec = start()) throw std::system_error(ec, "stet::server::start");
  wait();
}

void server::stop() noexcept { core_->stop(); }
void server::wait() { core_->wait(); }
std::uint16_t server::port() const noexcept { return core_->port(); }
std::size_t server::open_connections() const noexcept { return core_->open_connections(); }

}  // namespace stet
