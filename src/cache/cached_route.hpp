#pragma once
// One route's binding to a response cache: its policy, its index in the store
// (part of every key, the target of invalidate_route()), its counters and the
// gate of its background refreshes. Made by response_cache::route(); held by
// the route's definition (and by copies of the route_options the user keeps),
// never by a refresh: its destructor waits for the route's running refresh.

#include <stet/response_cache.hpp>

#include "cache/refresh_gate.hpp"
#include "cache/response_store.hpp"

#include <cstdint>
#include <memory>

namespace stet::detail {

class cached_route : public std::enable_shared_from_this<cached_route> {
 public:
  cached_route(std::shared_ptr<response_store> store, cache_policy policy);
  /// Turns away the route's queued refreshes and waits for a running one.
  ~cached_route();
  cached_route(const cached_route&) = delete;
  cached_route& operator=(const cached_route&) = delete;

  response_store& store() const noexcept { return *store_; }
  const std::shared_ptr<response_store>& shared_store() const noexcept { return store_; }
  const cache_policy& policy() const noexcept { return policy_; }
  std::uint32_t index() const noexcept { return index_; }
  route_counters& counters() const noexcept { return *counters_; }
  /// What a refresh job holds instead of the route.
  const std::shared_ptr<refresh_gate>& gate() const noexcept { return gate_; }

 private:
  std::shared_ptr<response_store> store_;
  cache_policy policy_;
  std::uint32_t index_;
  route_counters* counters_;  // in the store, for the store's life
  std::shared_ptr<refresh_gate> gate_ = std::make_shared<refresh_gate>();
};

}  // namespace stet::detail
