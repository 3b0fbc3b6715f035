#pragma once
// Where a published message travels before it reaches this process's
// subscribers. The hub (WebSocket and server-sent-event subscribers alike)
// never delivers a publish straight to its workers: it hands it to the bus,
// and delivers what the bus gives back through the sink. So a message takes
// the same path whether it was published here or on another instance, gets
// its id in one place (the id a client resumes from with Last-Event-ID), and
// arrives once, in publish order per topic.
//
// Two buses: the in-process one (the default; ids from a per-topic counter,
// history in memory) and the Redis one (ids and history from a Redis stream
// per topic, delivery through Redis pub/sub), chosen at start.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace stet::detail {

/// One published message as the bus delivers it. Views into the bus's own
/// storage: valid for the duration of the sink call only.
struct bus_event {
  std::string_view topic;
  std::string_view id;  // assigned by the bus; increasing per topic
  std::string_view data;
};

/// A message kept in a topic's history (owned: it outlives the call).
struct bus_record {
  std::string id;
  std::string data;
};

/// What a replay found after a client's last seen id.
struct bus_replay {
  std::vector<bus_record> events;  // oldest first, at most the asked limit
  bool complete = true;            // false: `last_id` is older than the history (a gap)
  bool failed = false;             // the bus could not answer (e.g. Redis down)
};

/// Counts for /-/metrics and /-/status (`stet_pubsub_*`).
struct bus_stats {
  std::uint64_t published = 0;  // accepted by publish()
  std::uint64_t delivered = 0;  // handed to the sink
  std::uint64_t refused = 0;    // publish() refused: the outgoing queue was full
  std::uint64_t lost = 0;       // accepted but known not delivered (e.g. dropped while disconnected)
  std::uint64_t reconnects = 0;
  bool connected = true;       // the in-process bus is always connected
  std::uint64_t timeouts = 0;  // connections dropped because the backend fell silent
};

class bus {
 public:
  /// Called once per delivered event, on whatever thread the bus runs
  /// (a publisher's thread for the in-process bus, the bus's own thread for
  /// Redis). Must not block: the hub posts to its workers' bounded mailboxes.
  using sink = std::function<void(const bus_event&)>;
  using replay_done = std::function<void(bus_replay)>;

  virtual ~bus() = default;

  /// Starts delivering to `deliver`; before the server's workers accept.
  virtual void start(sink deliver) = 0;
  /// Stops delivering; after it returns the sink is not called again.
  virtual void stop() noexcept = 0;

  /// This process gained its first subscriber of `topic` / lost its last.
  /// Any thread. A bus that delivers only watched topics (Redis) subscribes
  /// and unsubscribes here.
  virtual void watch(std::string_view topic) = 0;
  virtual void unwatch(std::string_view topic) noexcept = 0;

  /// Publishes from any thread; the event comes back through the sink (to
  /// this process too, when it watches the topic). False when refused: a
  /// bounded outgoing queue was full; counted in `refused`.
  virtual bool publish(std::string_view topic, std::string_view data) = 0;

  /// The events of `topic` after `last_id`, oldest first, at most `limit`.
  /// `done` runs once, on any thread, possibly before replay() returns.
  virtual void replay(std::string_view topic, std::string_view last_id, std::size_t limit, replay_done done) = 0;

  virtual bus_stats stats() const noexcept = 0;
};

}  // namespace stet::detail
