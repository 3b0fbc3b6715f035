#pragma once
// One worker's event streams by topic: which stream (and which of its
// subscriptions) receives a topic's deliveries here. Touched by the worker's
// thread only; the hub learns from its owner when a topic gains its first
// stream here or loses its last.

#include "events/event_queue.hpp"

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace stet::detail {

class event_members {
 public:
  /// Adds subscription `index` of `q` to `topic`; whether the topic is new here.
  /// @throws std::bad_alloc
  bool add(std::string_view topic, const std::shared_ptr<event_queue>& q, std::size_t index);
  /// Takes every subscription of `q` out; `emptied` is called with each topic
  /// that has no stream here any more.
  void remove(const event_queue& q, const std::function<void(std::string_view)>& emptied) noexcept;
  /// Hands a delivery to every stream of `topic` here.
  void deliver(std::string_view topic, std::string_view id, const event_queue::text& t) const noexcept;
  std::size_t topics() const noexcept { return topics_.size(); }

 private:
  struct member {
    std::shared_ptr<event_queue> queue;
    std::size_t index;
  };
  struct hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
  };
  std::unordered_map<std::string, std::vector<member>, hash, std::equal_to<>> topics_;
};

}  // namespace stet::detail
