#pragma once
// How a server carries the invalidations of its routes' response caches to
// every instance: at start it finds the caches its routes use, receives on a
// reserved topic of its bus (internal_topics.hpp: never a user's), and once
// the bus runs each cache sends its invalidations there. A cache applies its
// own invalidation when it is made (read-your-writes, whatever the bus's
// delay) and skips the copy that comes back; every other cache of the same
// name applies it once, when it arrives, with the same epoch rule. A cache
// is carried by one server at a time (the first to start with it).
//
// Caches of routes added after start() are not carried.

#include "pubsub/internal_topics.hpp"

#include <stet/router.hpp>

#include <memory>
#include <string_view>
#include <vector>

namespace stet::detail {

class response_store;

inline constexpr std::string_view invalidation_topic = "stet:internal:response-cache";

class cache_bus_link {
 public:
  /// Finds the caches of `routes` and receives on `topics`; before it starts.
  /// @throws std::bad_alloc
  cache_bus_link(const router& routes, internal_topics& topics);
  /// Stops sending: the bus may go once this returns.
  ~cache_bus_link();
  cache_bus_link(const cache_bus_link&) = delete;
  cache_bus_link& operator=(const cache_bus_link&) = delete;

  /// Once the bus started: each cache sends its invalidations on it.
  /// @throws std::bad_alloc
  void attach();

 private:
  using stores = std::vector<std::shared_ptr<response_store>>;
  std::shared_ptr<const stores> stores_;  // shared with the receiver, which the bus may call late
  internal_topics& topics_;
  // Who carries a cache (response_store::attach()): an address no later link
  // can take while the receiver, which holds it too, may still be called.
  std::shared_ptr<const char> token_ = std::make_shared<const char>();
};

}  // namespace stet::detail
