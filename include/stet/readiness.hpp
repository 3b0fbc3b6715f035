#pragma once
/// @file
/// stet::readiness: whether a server wants new traffic, for a balancer's
/// readiness probe (as opposed to liveness: a draining server is alive).

#include <stet/response.hpp>

#include <atomic>

namespace stet {

/// Ready from server::start() until a stop begins (server::stop()), then not
/// ready for good, so that a balancer stops sending new clients during the
/// stop's drain_delay. Shared between the server, which sets it, and a route
/// of your choice, which reads it:
/// `routes.get("/-/ready", [r](stet::request&) { return r->respond(); })`
/// with the same object in server_options::readiness. Thread-safe.
class readiness {
 public:
  /// Whether the server is started and no stop has begun (and no hold() is in force).
  bool ready() const noexcept {
    return serving_.load(std::memory_order_acquire) && !held_.load(std::memory_order_acquire);
  }
  /// 200 "ready" or 503 "not ready" (text/plain, `Cache-Control: no-store`).
  response respond() const;

  /// Holds readiness off (`true`) or lets it follow the server again
  /// (`false`): e.g. while a cache warms up or a dependency is down. Liveness
  /// is unaffected.
  void hold(bool held) noexcept { held_.store(held, std::memory_order_release); }

  /// Used by the server: true at start, false once a stop begins.
  void set_serving(bool serving) noexcept { serving_.store(serving, std::memory_order_release); }

 private:
  std::atomic<bool> serving_{false};
  std::atomic<bool> held_{false};
};

}  // namespace stet
