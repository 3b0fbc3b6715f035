#pragma once
// The seam between a stream's channel and the topics of the worker it runs
// on: the channel lives here (no sockets), the topic tables and the hub in
// src/net/. Each worker installs its own for its thread; subscribing is only
// possible on a worker's thread (inside on_open), where the stream's
// connection runs.

#include "pubsub/bus.hpp"

#include <cstddef>
#include <memory>
#include <string_view>

namespace stet::detail {

class event_queue;

class event_topics {
 public:
  /// `q`'s subscription number `index` receives every delivery of `topic`
  /// on this worker (event_queue::deliver). @throws std::bad_alloc
  virtual void subscribe(std::string_view topic, const std::shared_ptr<event_queue>& q, std::size_t index) = 0;
  /// Ends every subscription of `q` here (its stream ended).
  virtual void unsubscribe_all(event_queue& q) noexcept = 0;
  /// The events of `topic` after `last_id`, from the bus (bus::replay).
  virtual void replay(std::string_view topic, std::string_view last_id, std::size_t limit, bus::replay_done done) = 0;
  /// stet::publish() from a handler on this worker. @throws std::bad_alloc
  virtual bool publish(std::string_view topic, std::string_view message) = 0;

 protected:
  ~event_topics() = default;
};

/// This thread's (a worker's), or null.
event_topics* current_event_topics() noexcept;
/// Installs `t` for this thread (null: none).
void set_current_event_topics(event_topics* t) noexcept;

}  // namespace stet::detail
