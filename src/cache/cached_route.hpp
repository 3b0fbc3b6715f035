#pragma once
// One route's binding to a response cache: its policy, its index in the store
// (part of every key, the target of invalidate_route()) and its counters.
// Made by response_cache::route(); held by the route's definition.

#include <stet/response_cache.hpp>

#include "cache/response_store.hpp"

#include <cstdint>
#include <memory>

namespace stet::detail {

class cached_route : public std::enable_shared_from_this<cached_route> {
 public:
  cached_route(std::shared_ptr<response_store> store, cache_policy policy);
  cached_route(const cached_route&) = delete;
  cached_route& operator=(const cached_route&) = delete;

  response_store& store() const noexcept { return *store_; }
  const cache_policy& policy() const noexcept { return policy_; }
  std::uint32_t index() const noexcept { return index_; }
  route_counters& counters() const noexcept { return *counters_; }

 private:
  std::shared_ptr<response_store> store_;
  cache_policy policy_;
  std::uint32_t index_;
  route_counters* counters_;  // in the store, for the store's life
};

}  // namespace stet::detail
