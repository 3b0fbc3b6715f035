#pragma once
// Topics the library keeps for itself on the bus its users' topics travel
// (e.g. the response cache's invalidations, src/cache/cache_bus.hpp): a bus
// wrapped around the chosen one that sends what arrives on a reserved topic
// to the receiver registered for it, never to the hub, and keeps users away
// from reserved topics: their publish is refused, their watch and unwatch
// are ignored (a user leaving a reserved "room" cannot unsubscribe the
// library), and their replay finds nothing. A reserved topic starts with
// internal_topic_prefix.

#include "pubsub/bus.hpp"

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace stet::detail {

inline constexpr std::string_view internal_topic_prefix = "stet:internal:";

constexpr bool is_internal_topic(std::string_view topic) noexcept { return topic.starts_with(internal_topic_prefix); }

class internal_topics final : public bus {
 public:
  /// Called with each message delivered on its topic, on the bus's thread
  /// (the publisher's for the in-process bus); must not block or throw.
  using receiver = std::function<void(std::string_view data)>;

  explicit internal_topics(std::unique_ptr<bus> inner) noexcept : inner_(std::move(inner)) {}

  /// Before start(): what arrives on `topic` (a reserved one) goes to `receive`.
  /// @throws std::bad_alloc
  void add_receiver(std::string topic, receiver receive);
  /// Publishes on a reserved topic; as bus::publish().
  bool publish_internal(std::string_view topic, std::string_view data) { return inner_->publish(topic, data); }

  /// Starts the inner bus and watches every reserved topic with a receiver.
  void start(sink deliver) override;
  void stop() noexcept override { inner_->stop(); }
  void watch(std::string_view topic) override;
  void unwatch(std::string_view topic) noexcept override;
  bool publish(std::string_view topic, std::string_view data) override;
  void replay(std::string_view topic, std::string_view last_id, std::size_t limit, replay_done done) override;
  bus_stats stats() const noexcept override { return inner_->stats(); }

 private:
  std::unique_ptr<bus> inner_;
  std::vector<std::pair<std::string, receiver>> receivers_;  // fixed once started: read without a lock
};

}  // namespace stet::detail
