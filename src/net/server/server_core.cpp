#include "net/server/server_core.hpp"

#include "metrics/pubsub_metrics.hpp"
#include "net/accept/socket_activation.hpp"
#include "pubsub/in_process_bus.hpp"
#include "pubsub/internal_topics.hpp"
#include "pubsub/make_bus.hpp"
#include "route/router_access.hpp"
#include "route/state.hpp"

#include <stet/readiness.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <thread>

namespace stet::detail {

server_core::server_core(const router& routes, server_options options) : routes_(routes), options_(std::move(options)) {
  if (options_.threads == 0) options_.threads = std::max(1u, std::thread::hardware_concurrency());
  if (options_.listeners.empty()) {  // 127.0.0.1:8080, or what the deprecated host and port say
    const std::string& host = options_.host.get();
    const bool v6 = host.find(':') != std::string::npos;
    options_.listeners.push_back(
        {v6 ? fmt::format("[{}]:{}", host, options_.port.get()) : fmt::format("{}:{}", host, options_.port.get())});
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

config_error server_core::start() {
  if (started_) return {std::make_error_code(std::errc::operation_in_progress), "the server is already started"};
  if (config_error failed = expand_inherited_listeners()) return failed;
  proxy_trust_result trust = proxy_trust::compile(options_.trusted_proxies);
  if (trust.error) return {std::make_error_code(std::errc::invalid_argument), trust.error->message()};
  trust_ = std::move(trust.trust);
  // The bus the topics travel on: in-process unless options_.pubsub names a
  // Redis; a value that is not a usable URL fails here, before anything is bound.
  bus_choice chosen = make_bus(options_);
  if (chosen.error) return std::move(chosen.error);
  // The library's own topics ride it too: the invalidations of the response
  // caches these routes use (cache_bus.hpp).
  auto carrier =
      std::make_unique<internal_topics>(chosen.chosen ? std::move(chosen.chosen) : std::make_unique<in_process_bus>());
  cache_bus_ = std::make_unique<cache_bus_link>(routes_, *carrier);
  hub_.use_bus(std::move(carrier));
  if (options_.access_log.enabled) {
    log_sink_ = std::make_unique<access_log_sink>(options_.access_log.path);
    if (const std::error_code open_error = log_sink_->open_error()) {
      log_sink_.reset();
      return {open_error, fmt::format("access log {}: {}", options_.access_log.path, open_error.message())};
    }
  }
  if (config_error failed = open_tls()) {
    log_sink_.reset();
    return failed;
  }
  offload_ = std::make_unique<offload_pool>(
      offload_settings{options_.offload_threads, options_.offload_queue, options_.offload_retry_after});
  for (unsigned i = 0; i < options_.threads; ++i) {
    workers_.push_back(std::make_unique<worker>(*this, routes_, options_, log_sink_.get(), offload_.get()));
    workers_.back()->set_websocket_hub(&hub_);
  }
  if (config_error failed = open_listeners()) {
    listeners_.clear();
    ports_.clear();
    workers_.clear();
    tls_.clear();
    return failed;
  }
  started_ = true;
  hub_.start();  // before anything is accepted: no publish finds the bus stopped
  cache_bus_->attach();
  if (options_.metrics) add_pubsub_collector(*options_.metrics, hub_.current_bus());
  for (auto& group : listeners_) {
    for (auto& l : group) l->accept_next();
  }
  for (auto& w : workers_) w->start_thread();
  ready_ = true;
  if (options_.readiness) options_.readiness->set_serving(true);
  return {};
}

// "systemd" stands for every socket systemd passed, so it becomes one
// listener per socket here, where the environment is read.
config_error server_core::expand_inherited_listeners() {
  std::vector<listen_options> expanded;
  for (const listen_options& each : options_.listeners) {
    std::string why;
    const std::vector<std::string> addresses = expand_inherited(each.address, why);
    if (addresses.empty()) {
      return {std::make_error_code(std::errc::invalid_argument), fmt::format("listen on {}: {}", each.address, why)};
    }
    for (const std::string& address : addresses) {
      listen_options one = each;
      one.address = address;
      expanded.push_back(std::move(one));
    }
  }
  options_.listeners = std::move(expanded);
  return {};
}

// Every listener is bound before any accepts, so a bad address leaves nothing bound.
config_error server_core::open_listeners() {
  for (const listen_options& each : options_.listeners) {
    std::string why;
    const std::optional<listen_address> at = parse_listen_address(each.address, why);
    if (!at)
      return {std::make_error_code(std::errc::invalid_argument), fmt::format("listen on {}: {}", each.address, why)};
    // SO_REUSEPORT: one acceptor per worker, all on the port the first one got.
    // (An inherited socket is one socket: it is shared by round-robin.)
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
      auto l = std::make_unique<listener>(*this, each, std::move(targets), tls_[listeners_.size() - 1]);
      if (const std::error_code ec = l->open(bind_at, options_.reuse_port, options_.backlog, why)) {
        return {ec, fmt::format("listen on {}: {}", each.address, why)};
      }
      if (bind_at.ip) bind_at.ip->port(l->port());
      group.push_back(std::move(l));
    }
    ports_.push_back(group.front()->port());
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

// At the limit one more client is let in while room is made for it (the
// eviction runs on a worker); not while an eviction is in flight or after one
// found nobody to spare.
bool server_core::may_accept() noexcept {
  const std::size_t open = open_.load();
  const std::size_t max = options_.max_connections;
  return open < max || (open == max && !full_.load() && !evicting_.load());
}

void server_core::accepted() noexcept {
  if (++open_ > options_.max_connections) make_room();
}

void server_core::connection_closed() noexcept {
  --open_;
  full_ = false;
  resume_listeners();
}

void server_core::resume_listeners() noexcept {
  for (auto& group : listeners_) {
    for (auto& l : group) l->resume();
  }
}

// Tried on one worker after another until one has a connection to spare. The
// victim's close resumes the listeners; they are resumed once more after the
// flag is down, since one that reached the limit meanwhile saw an eviction in
// flight and paused.
void server_core::make_room() noexcept {
  if (stopping_ || evicting_.exchange(true)) return;
  evict_on(next_evicting_++ % workers_.size(), workers_.size(), false, steady::now(), steady::time_point::max());
}

// Two rounds over the workers: one for connections that have not sent a
// complete request, then one that takes idle keep-alives too, so a silent
// connection on one worker goes before an idle one on another.
void server_core::evict_on(std::size_t worker_index, std::size_t workers_left, bool idle_too,
                           steady::time_point newcomer, steady::time_point ripe_at) noexcept {
  worker* w = workers_[worker_index].get();
  asio::post(w->io(), [this, w, worker_index, workers_left, idle_too, newcomer, ripe_at]() mutable {
    const bool evicted = !stopping_ && w->evict_one(idle_too, newcomer, &ripe_at);
    if (!evicted && !stopping_ && (workers_left > 1 || !idle_too)) {
      const std::size_t next = (worker_index + 1) % workers_.size();
      if (workers_left > 1) {
        evict_on(next, workers_left - 1, idle_too, newcomer, ripe_at);
      } else {
        evict_on(next, workers_.size(), true, newcomer, ripe_at);
      }
      return;
    }
    if (evicted) {
      evicting_ = false;
      resume_listeners();
      return;
    }
    // Nobody to spare yet: accepting stays paused until a connection closes
    // or the oldest waiting one has waited out the grace.
    full_ = true;
    evicting_ = false;
    retry_room_at(ripe_at);
  });
}

// `ripe_at` is when the oldest connection the scans skipped as too young has
// waited out the grace (max() if they skipped none: every connection was
// busy). One timer, on the first worker's loop, moved earlier when a later
// scan found an earlier time.
void server_core::retry_room_at(steady::time_point ripe_at) noexcept {
  if (ripe_at == steady::time_point::max()) {
    ripe_at = steady::now() + std::max<std::chrono::milliseconds>(options_.eviction_grace, min_room_retry);
  }
  asio::post(workers_.front()->io(), [this, ripe_at] {
    if (stopping_ || ripe_at >= room_retry_due_) return;
    if (!room_retry_) room_retry_.emplace(workers_.front()->io());
    room_retry_due_ = ripe_at;
    room_retry_->expires_at(ripe_at);  // a wait already armed ends with operation_aborted
    room_retry_->async_wait([this](boost::system::error_code ec) {
      if (ec || stopping_) return;
      room_retry_due_ = steady::time_point::max();
      if (open_.load() > options_.max_connections) {
        make_room();
      } else if (full_.exchange(false)) {
        resume_listeners();
      }
    });
  });
}

connection_host::admission server_core::admit(const endpoint& peer) noexcept {
  const std::size_t limit = options_.max_connections_per_address;
  if (limit == 0 || !peer.is_ip() || trust_.trusts(peer)) return admission::admitted;
  return per_address_.try_add(peer, limit) ? admission::counted : admission::refused;
}

void server_core::release(const endpoint& peer) noexcept { per_address_.remove(peer); }

// The balancer in front asks for readiness every few seconds; until it has
// seen the 503 it keeps sending clients here, so accepting goes on for
// drain_delay after readiness turned.
void server_core::stop() noexcept {
  if (!started_ || stop_begun_.exchange(true)) return;
  ready_ = false;
  if (options_.readiness) options_.readiness->set_serving(false);
  if (options_.drain_delay.count() <= 0) {
    stop_accepting();
    return;
  }
  asio::post(workers_.front()->io(), [this] {
    drain_delay_.emplace(workers_.front()->io(), options_.drain_delay);
    drain_delay_->async_wait([this](boost::system::error_code) { stop_accepting(); });
  });
}

void server_core::stop_accepting() noexcept {
  stopping_ = true;
  for (auto& group : listeners_) {
    for (auto& l : group) l->close();
  }
  asio::post(workers_.front()->io(), [this] {
    if (room_retry_) room_retry_->cancel();  // the first worker's loop would wait for it
  });
  for (auto& w : workers_) {
    worker* each = w.get();
    asio::post(each->io(), [each] { each->drain(); });
  }
}

config_error server_core::reopen_access_log() {
  if (!log_sink_) return {};
  if (const std::error_code ec = log_sink_->reopen()) {
    return {ec, fmt::format("access log {}: {}", options_.access_log.path, ec.message())};
  }
  return {};
}

bool server_core::publish(std::string_view topic, std::string_view message, message_kind kind) {
  return hub_.publish(topic, message, kind, nullptr);
}

void server_core::wait() {
  for (auto& w : workers_) w->join();
}

}  // namespace stet::detail

namespace stet {

server::server(const router& routes, server_options options)
    : core_(std::make_unique<detail::server_core>(routes, std::move(options))) {}

server::~server() = default;

config_error server::start() { return core_->start(); }

void server::run() {
  if (config_error failed = start()) throw std::system_error(failed.code(), failed.message());
  wait();
}

void server::stop() noexcept { core_->stop(); }
void server::wait() { core_->wait(); }
std::uint16_t server::port() const noexcept { return core_->port(); }
std::uint16_t server::port(std::size_t index) const noexcept { return core_->port(index); }
std::size_t server::open_connections() const noexcept { return core_->open_connections(); }
bool server::ready() const noexcept { return core_->ready(); }
config_error server::reopen_access_log() { return core_->reopen_access_log(); }
bool server::publish(std::string_view topic, std::string_view message, message_kind kind) {
  return core_->publish(topic, message, kind);
}
config_error server::reload_tls() { return core_->reload_tls(); }

}  // namespace stet
