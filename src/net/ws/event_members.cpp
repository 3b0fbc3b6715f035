#include "net/ws/event_members.hpp"

#include <algorithm>

namespace stet::detail {

bool event_members::add(std::string_view topic, const std::shared_ptr<event_queue>& q, std::size_t index) {
  auto it = topics_.find(topic);
  const bool created = it == topics_.end();
  if (created) it = topics_.emplace(std::string(topic), std::vector<member>()).first;
  try {
    it->second.push_back({q, index});
  } catch (...) {
    if (created) topics_.erase(it);
    throw;
  }
  return created;
}

// A stream has few subscriptions and a worker maybe many topics: the
// stream's own list says where to look.
void event_members::remove(const event_queue& q, const std::function<void(std::string_view)>& emptied) noexcept {
  for (const std::string& topic : q.subscribed_topics()) {
    const auto it = topics_.find(topic);
    if (it == topics_.end()) continue;
    std::erase_if(it->second, [&q](const member& m) { return m.queue.get() == &q; });
    if (!it->second.empty()) continue;
    emptied(it->first);
    topics_.erase(it);
  }
}

void event_members::deliver(std::string_view topic, std::string_view id, const event_queue::text& t) const noexcept {
  const auto it = topics_.find(topic);
  if (it == topics_.end()) return;
  for (const member& m : it->second) m.queue->deliver(m.index, id, t);
}

}  // namespace stet::detail
