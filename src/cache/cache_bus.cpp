#include "cache/cache_bus.hpp"

#include "cache/cached_route.hpp"
#include "cache/response_store.hpp"
#include "route/router_access.hpp"

#include <algorithm>
#include <mutex>
#include <string>

namespace stet::detail {
namespace {

std::vector<std::shared_ptr<response_store>> caches_of(const router& routes) {
  std::vector<std::shared_ptr<response_store>> found;
  const router_state& state = router_access::state(routes);
  const std::lock_guard lock(state.mutex);
  for (const std::unique_ptr<route_def>& def : state.defs) {
    if (!def->cache) continue;
    const std::shared_ptr<response_store>& s = def->cache->shared_store();
    if (std::find(found.begin(), found.end(), s) == found.end()) found.push_back(s);
  }
  return found;
}

}  // namespace

cache_bus_link::cache_bus_link(const router& routes, internal_topics& topics)
    : stores_(std::make_shared<const stores>(caches_of(routes))), topics_(topics) {
  if (stores_->empty()) return;
  topics_.add_receiver(std::string(invalidation_topic), [owner = token_, all = stores_](std::string_view message) {
    for (const std::shared_ptr<response_store>& s : *all) s->receive(owner.get(), message);
  });
}

cache_bus_link::~cache_bus_link() {
  for (const std::shared_ptr<response_store>& s : *stores_) s->detach(token_.get());
}

void cache_bus_link::attach() {
  for (const std::shared_ptr<response_store>& s : *stores_) {
    (void)s->attach(token_.get(), [&topics = topics_](std::string_view message) {
      return topics.publish_internal(invalidation_topic, message);
    });
  }
}

}  // namespace stet::detail
