#include "pubsub/internal_topics.hpp"

namespace stet::detail {

void internal_topics::add_receiver(std::string topic, receiver receive) {
  receivers_.emplace_back(std::move(topic), std::move(receive));
}

void internal_topics::start(sink deliver) {
  inner_->start([this, deliver = std::move(deliver)](const bus_event& e) {
    if (!is_internal_topic(e.topic)) {
      deliver(e);
      return;
    }
    for (const auto& [topic, receive] : receivers_) {
      if (topic == e.topic) receive(e.data);
    }
  });
  for (const auto& each : receivers_) inner_->watch(each.first);
}

void internal_topics::watch(std::string_view topic) {
  if (!is_internal_topic(topic)) inner_->watch(topic);
}

void internal_topics::unwatch(std::string_view topic) noexcept {
  if (!is_internal_topic(topic)) inner_->unwatch(topic);
}

bool internal_topics::publish(std::string_view topic, std::string_view data) {
  if (is_internal_topic(topic)) return false;
  return inner_->publish(topic, data);
}

void internal_topics::replay(std::string_view topic, std::string_view last_id, std::size_t limit, replay_done done) {
  if (is_internal_topic(topic)) {
    done(bus_replay{});
    return;
  }
  inner_->replay(topic, last_id, limit, std::move(done));
}

}  // namespace stet::detail
