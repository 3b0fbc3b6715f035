#pragma once
// Publish/subscribe across workers. Each worker keeps its own topic table
// (src/websocket/topic_table.hpp, touched by its thread only); the hub knows,
// per topic, which workers have subscribers at all, so a publish is posted
// only to those: the frame is built once and shared by every worker and
// every subscriber. A worker's set changes only when one of its topics gains
// its first subscriber or loses its last, so publishers take a shared lock.
// Each worker's mailbox is bounded (server_options::websocket_mailbox_*): a
// publish a worker's full mailbox refuses misses that worker's subscribers.

#include <cstddef>
#include <functional>
#include <memory>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace stet::detail {

class websocket_worker;

class websocket_hub {
 public:
  /// A worker's WebSocket state joins; returns its slot.
  std::size_t join(websocket_worker& w);
  /// Slot `slot` leaves (its worker is going away).
  void leave(std::size_t slot) noexcept;

  /// The worker in `slot` has subscribers of `topic` now / is about to have none.
  /// @throws std::bad_alloc
  void topic_opened(std::string_view topic, std::size_t slot);
  void topic_closing(std::string_view topic, std::size_t slot) noexcept;

  /// Delivers `frame` to every subscriber of `topic`: on `here` (the calling
  /// worker, or null from another thread) at once, posted to the other
  /// workers that have subscribers. Whether any worker has.
  bool publish(std::string_view topic, const std::shared_ptr<const std::string>& frame, websocket_worker* here);

 private:
  struct hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
  };

  mutable std::shared_mutex mutex_;
  std::vector<websocket_worker*> workers_;                                            // by slot; null when left
  std::unordered_map<std::string, std::vector<bool>, hash, std::equal_to<>> topics_;  // by slot
};

}  // namespace stet::detail
