#pragma once
// One hub for the topics of WebSocket and server-sent-event subscribers
// alike. A publish (server::publish(), a WebSocket's publish(), an event
// stream's POST route) never goes straight to the workers: it is handed to
// the bus (src/pubsub/bus.hpp: in-process by default, Redis across
// instances), which gives it its id and history, and what the bus delivers
// comes back through deliver(). There the WebSocket frame and the event text
// are built once and shared by every worker and every subscriber.
//
// The hub knows, per topic, which workers have subscribers of which kind,
// so a delivery is posted only to those, and built only in the forms they
// need. A worker's set changes only when one of its topics gains its first
// subscriber or loses its last, so deliveries take a shared lock. Each
// worker's mailbox is bounded (server_options::websocket_mailbox_*): a
// delivery a full mailbox refuses misses that worker's subscribers, counted.
//
// What travels on the bus is the message behind one byte saying its kind
// ('t' text, 'b' binary): the bus carries bytes, the hub gives them meaning.
// Binary messages reach WebSocket subscribers only.

#include <stet/websocket_message.hpp>

#include "pubsub/bus.hpp"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace stet::detail {

class websocket_worker;

class topic_hub {
 public:
  /// Which kinds of subscribers a worker has of a topic (bits).
  enum member_kind : std::uint8_t { websocket_members = 1, event_members = 2 };

  /// With the in-process bus.
  topic_hub();
  ~topic_hub();
  topic_hub(const topic_hub&) = delete;
  topic_hub& operator=(const topic_hub&) = delete;

  /// Replaces the bus; before start().
  void use_bus(std::unique_ptr<bus> b) noexcept { bus_ = std::move(b); }
  /// For the metrics (which may outlive the server: they hold it weakly).
  std::shared_ptr<const bus> current_bus() const noexcept { return bus_; }
  /// The bus starts delivering here / stops (before the workers go).
  void start();
  void stop() noexcept;

  /// A worker's topic state joins; returns its slot.
  std::size_t join(websocket_worker& w);
  /// Slot `slot` leaves (its worker is going away).
  void leave(std::size_t slot) noexcept;

  /// The worker in `slot` has subscribers of `kind` of `topic` now / is about to have none.
  /// @throws std::bad_alloc
  void topic_opened(std::string_view topic, std::size_t slot, member_kind kind);
  void topic_closing(std::string_view topic, std::size_t slot, member_kind kind) noexcept;

  /// Hands `message` to the bus; its delivery reaches every subscriber of
  /// `topic`, on `here` (the calling worker, or null from another thread) at
  /// once when the bus delivers at once. Whether this process had
  /// subscribers; false too when the bus refused it.
  /// @throws std::bad_alloc
  bool publish(std::string_view topic, std::string_view message, message_kind kind, websocket_worker* here);

  /// The text events of `topic` after `last_id` (bus::replay), their data
  /// without the hub's kind byte; binary messages left out.
  void replay(std::string_view topic, std::string_view last_id, std::size_t limit, bus::replay_done done);

  /// The bus's sink: one delivered message to this process's subscribers.
  void deliver(const bus_event& e) noexcept;

 private:
  struct hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
  };

  std::shared_ptr<bus> bus_;
  mutable std::shared_mutex mutex_;
  std::vector<websocket_worker*> workers_;                                                    // by slot; null when left
  std::unordered_map<std::string, std::vector<std::uint8_t>, hash, std::equal_to<>> topics_;  // member kinds by slot
  // watch()/unwatch() in the order topics open and close, outside mutex_ (a
  // bus may take locks of its own that its deliveries hold).
  std::mutex watch_mutex_;
};

}  // namespace stet::detail
