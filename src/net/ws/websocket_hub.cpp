#include "net/ws/websocket_hub.hpp"

#include "net/ws/websocket_worker.hpp"

#include <algorithm>
#include <mutex>

namespace stet::detail {

std::size_t websocket_hub::join(websocket_worker& w) {
  std::unique_lock lock(mutex_);
  const auto free = std::find(workers_.begin(), workers_.end(), nullptr);
  if (free != workers_.end()) {
    *free = &w;
    return static_cast<std::size_t>(free - workers_.begin());
  }
  workers_.push_back(&w);
  return workers_.size() - 1;
}

void websocket_hub::leave(std::size_t slot) noexcept {
  std::unique_lock lock(mutex_);
  if (slot < workers_.size()) workers_[slot] = nullptr;
  for (auto& [name, slots] : topics_) {
    if (slot < slots.size()) slots[slot] = false;
  }
  std::erase_if(topics_, [](const auto& entry) {
    return std::none_of(entry.second.begin(), entry.second.end(), std::identity{});
  });
}

void websocket_hub::topic_opened(std::string_view topic, std::size_t slot) {
  std::unique_lock lock(mutex_);
  auto it = topics_.find(topic);
  if (it == topics_.end()) it = topics_.emplace(std::string(topic), std::vector<bool>()).first;
  if (it->second.size() <= slot) it->second.resize(slot + 1);
  it->second[slot] = true;
}

void websocket_hub::topic_closing(std::string_view topic, std::size_t slot) noexcept {
  std::unique_lock lock(mutex_);
  const auto it = topics_.find(topic);
  if (it == topics_.end() || slot >= it->second.size()) return;
  it->second[slot] = false;
  if (std::none_of(it->second.begin(), it->second.end(), std::identity{})) topics_.erase(it);
}

bool websocket_hub::publish(std::string_view topic, const std::shared_ptr<const std::string>& frame,
                            websocket_worker* here) {
  bool local = false;
  {
    std::shared_lock lock(mutex_);
    const auto it = topics_.find(topic);
    if (it == topics_.end()) return false;
    std::shared_ptr<const websocket_publication> posted;
    for (std::size_t slot = 0; slot < it->second.size(); ++slot) {
      websocket_worker* w = it->second[slot] ? workers_[slot] : nullptr;
      if (w == nullptr) continue;
      if (w == here) {
        local = true;
        continue;
      }
      // One copy of the topic for every worker it is posted to. A full
      // mailbox refuses it and counts that: this worker's subscribers miss it.
      if (!posted)
        posted = std::make_shared<const websocket_publication>(websocket_publication{std::string(topic), frame});
      w->post_delivery(posted);
    }
  }
  // Outside the lock: a delivery to many subscribers takes a while, and the
  // local topic table is this thread's own.
  if (local) here->deliver(topic, frame);
  return true;
}

}  // namespace stet::detail
