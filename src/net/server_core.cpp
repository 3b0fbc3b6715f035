#include "net/server_core.hpp"

#include "route/router_access.hpp"
#include "route/state.hpp"

#include <fmt/format.h>

#include <thread>

namespace stet::detail {

server_core::server_core(router routes, server_options options)
    : routes_(std::move(routes)), options_(std::move(options)) {
  if (options_.threads == 0) options_.threads = std::max(1u, std::thread::hardware_concurrency());
  if (options_.listeners.empty()) {
    const bool v6 = options_.host.find(':') != std::string::npos;
    options_.listeners.push_back({v6 ? fmt::format("[{}]:{}", options_.host, options_.port)
                                     : fmt::format("{}:{}", options_.host, options_.port)});
  }
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

start_error server_core::start() {
  if (started_) return {std::make_error_code(std::errc::operation_in_progress), "the server is already started"};
  if (options_.access_log.enabled) {
    log_sink_ = std::make_unique<access_log_sink>(options_.access_log.path);
    if (const std::error_code open_error = log_sink_->open_error()) {
      log_sink_.reset();
      return {open_error, fmt::format("access log {}: {}", options_.access_log.path, open_error.message())};
    }
  }
  offload_ = std::make_unique<offload_pool>(
      offload_settings{options_.offload_threads, options_.offload_queue, options_.offload_retry_after});
  for (unsigned i = 0; i < options_.threads; ++i) {
    workers_.push_back(std::make_unique<worker>(*this, routes_, options_, log_sink_.get(), offload_.get()));
  }
  if (start_error failed = open_listeners()) {
    listeners_.clear();
    ports_.clear();
    workers_.clear();
    return failed;
  }
  started_ = true;
  for (auto& group : listeners_) {
    for (auto& l : group) l->accept_next();
  }
  for (auto& w : workers_) w->start_thread();
  return {};
}

// Every listener is bound before any accepts, so a bad address leaves nothing bound.
start_error server_core::open_listeners() {
  for (const listen_options& each : options_.listeners) {
    std::string why;
    const std::optional<listen_address> at = parse_listen_address(each.address, why);
    if (!at)
      return {std::make_error_code(std::errc::invalid_argument), fmt::format("listen on {}: {}", each.address, why)};
    // SO_REUSEPORT: one acceptor per worker, all on the port the first one got.
    const bool per_worker = options_.reuse_port && at->ip.has_value();
    listen_address bind_at = *at;
    auto& group = listeners_.emplace_back();
    for (std::size_t i = 0; i < (per_worker ? workers_.size() : 1); ++i) {
      std::vector<worker*> targets;
      if (per_worker) {
        targets.push_back(workers_[i].get());
      } else {
        for (auto& w : workers_) targets.push_back(w.get());
      }
      auto l = std::make_unique<listener>(*this, each, std::move(targets));
      if (const std::error_code ec = l->open(bind_at, options_.reuse_port, options_.backlog, why)) {
        return {ec, fmt::format("listen on {}: {}", each.address, why)};
      }
      if (bind_at.ip) bind_at.ip->port(l->port());
      group.push_back(std::move(l));
    }
    ports_.push_back(bind_at.ip ? bind_at.ip->port() : 0);
  }
  return {};
}

std::uint16_t server_core::port(std::size_t index) const noexcept {
  return started_ && index < ports_.size() ? ports_[index] : 0;
}

std::uint16_t server_core::port() const noexcept {
  for (std::size_t i = 0; i < ports_.size(); ++i) {
    if (const std::uint16_t p = port(i)) return p;
  }
  return 0;
}

void server_core::connection_closed() noexcept {
  --open_;
  for (auto& group : listeners_) {
    for (auto& l : group) l->resume();
  }
}

void server_core::stop() noexcept {
  if (!started_ || stopping_.exchange(true)) return;
  for (auto& group : listeners_) {
    for (auto& l : group) l->close();
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

start_error server::start() { return core_->start(); }

void server::run() {
  if (start_error failed = start()) throw std::system_error(failed.code(), failed.message());
  wait();
}

void server::stop() noexcept { core_->stop(); }
void server::wait() { core_->wait(); }
std::uint16_t server::port() const noexcept { return core_->port(); }
std::uint16_t server::port(std::size_t index) const noexcept { return core_->port(index); }
std::size_t server::open_connections() const noexcept { return core_->open_connections(); }

}  // namespace stet
