#pragma once
// What waits between an event stream's senders (any thread: the handler's
// channel, the worker's topic deliveries, a replay's answer) and its
// connection, which takes the events when the socket can take them. Bounded
// in events and bytes; when a push would pass either bound the stream is
// over: what waits is dropped and the stream ends with a retry hint (the
// client resumes from the last event it received). Until a subscription's
// replay has answered, that topic's live deliveries are held, so replayed
// and live events reach the client once each, in id order.

#include <stet/events.hpp>

#include "pubsub/bus.hpp"

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace stet::detail {

class event_topics;

/// Compares two bus ids: decimal numbers, or `ms-seq` pairs (Redis streams).
/// Negative, zero or positive as a is before, equal to or after b.
int compare_event_ids(std::string_view a, std::string_view b) noexcept;

class event_queue {
 public:
  using text = std::shared_ptr<const std::string>;

  explicit event_queue(const event_stream_options& o) noexcept : options_(o) {}

  // Any thread.

  /// Queues one formatted event (or comment).
  event_status push(text t);
  /// A publish of subscription `index`'s topic, formatted once for every
  /// stream (`id` is the bus's). Never throws: out of memory ends the stream.
  void deliver(std::size_t index, std::string_view id, const text& t) noexcept;
  /// The answer to subscription `index`'s replay from `last_id`.
  void replayed(std::size_t index, std::string_view last_id, const bus_replay& r) noexcept;
  /// Ends the stream once what waits is written.
  void close() noexcept;
  bool closed() const noexcept;

  // The stream's worker thread.

  /// A new subscription of `topic`: its number. With `resuming`, live events
  /// are held until replayed() answers.
  std::size_t add_subscription(std::string_view topic, bool resuming);
  /// Where subscriptions were made (to end them there).
  void set_topics(event_topics* t) noexcept { topics_ = t; }
  event_topics* topics() const noexcept { return topics_; }
  /// The topics subscribed to, one entry per subscription (a copy: the list
  /// is read under the lock).
  std::vector<std::string> subscribed_topics() const noexcept;
  /// Events that may wait at once (what a replay asks for).
  std::size_t capacity() const noexcept { return options_.max_queued_events; }
  /// The stream ended: no more events are taken, subscriptions end.
  void detach() noexcept;

  /// overflowed: end with a retry hint (a full queue, or a replay cut short).
  enum class take_result : std::uint8_t { taken, parked, empty, ended, overflowed };
  /// Moves waiting events into `out` up to about `target` bytes. With none
  /// waiting, calls `park` (the connection's) and keeps what it returns, to
  /// be called at the next push.
  take_result take(std::string& out, std::size_t target, const std::function<std::function<void()>()>& park);
  /// Whether events wait.
  bool empty() const noexcept;

 private:
  // closing_with_retry: a replay was cut; ends with a retry hint like an overflow, without counting as one.
  enum class state : std::uint8_t { open, closing, closing_with_retry, overflowed, ended };
  struct subscription {
    std::string topic;
    bool held = false;  // replay pending: deliveries go to held_
  };
  struct held_event {
    std::size_t index;
    std::string id;
    text t;
  };

  /// Under mutex_: queue `t` or, past a bound, overflow. Returns the wake to call.
  bool push_locked(text t);
  void overflow_locked() noexcept;
  std::function<void()> take_wake_locked() noexcept;

  const event_stream_options options_;
  mutable std::mutex mutex_;
  std::deque<text> queue_;
  std::size_t bytes_ = 0;
  std::vector<held_event> held_;
  std::vector<subscription> subs_;  // appended on the worker only; read under mutex_
  std::function<void()> wake_;
  state state_ = state::open;
  event_topics* topics_ = nullptr;
};

}  // namespace stet::detail
