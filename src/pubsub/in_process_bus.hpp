#pragma once
// The default bus: a publish is delivered to this process only, at once, on
// the publisher's thread. Ids come from a per-topic counter that starts at the
// topic's creation time in microseconds since the epoch, so ids keep
// increasing across a restart or an eviction of the topic: a client that
// resumes with an id from before either is told of the gap instead of being
// handed events of another incarnation as if they followed its own.
//
// History is bounded three ways: per topic (events and bytes), and over all
// topics (bytes and topic count). When over the totals, the topics published
// to least recently lose their oldest events first (unwatched topics before
// watched ones); a topic without history and without watchers is forgotten.

#include "pubsub/bus.hpp"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <unordered_map>

namespace stet::detail {

class in_process_bus final : public bus {
 public:
  struct limits {
    std::size_t topic_events = 1024;             ///< history kept per topic, in events
    std::size_t topic_bytes = 1024 * 1024;       ///< and in bytes (data and id)
    std::size_t total_bytes = 64 * 1024 * 1024;  ///< over all topics
    std::size_t topics = 16 * 1024;              ///< topics with history or watchers, at most (watched ones are kept)
  };

  explicit in_process_bus(limits l) noexcept : limits_(l) {}
  in_process_bus() noexcept : in_process_bus(limits{}) {}

  void start(sink deliver) override;
  void stop() noexcept override;
  void watch(std::string_view topic) override;
  void unwatch(std::string_view topic) noexcept override;
  bool publish(std::string_view topic, std::string_view data) override;
  void replay(std::string_view topic, std::string_view last_id, std::size_t limit, replay_done done) override;
  bus_stats stats() const noexcept override;

  /// History held now, over all topics (for tests and the status page).
  std::size_t history_bytes() const noexcept;
  std::size_t topic_count() const noexcept;

 private:
  struct record {
    std::uint64_t id;
    std::string data;
  };
  struct topic_state;
  using topic_list = std::list<std::shared_ptr<topic_state>>;  // least recently published first
  struct topic_state {
    std::string name;
    std::mutex delivery;  // held across id, history and the sink call: publish order per topic
    // The rest is guarded by the bus's mutex_.
    std::uint64_t next_id = 0;
    std::deque<record> history;
    std::size_t bytes = 0;
    std::size_t watchers = 0;
    topic_list::iterator lru;
  };
  struct hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
  };

  std::shared_ptr<topic_state> find_or_add(std::string_view topic);
  void drop_oldest(topic_state& t) noexcept;
  void trim_totals() noexcept;
  bool forget_if_empty(topic_state& t) noexcept;
  static std::size_t cost(const record& r) noexcept { return r.data.size() + 24; }

  const limits limits_;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, std::shared_ptr<topic_state>, hash, std::equal_to<>> topics_;
  topic_list lru_;
  std::size_t total_bytes_ = 0;
  std::uint64_t id_floor_ = 0;  // past every id a forgotten topic handed out
  sink deliver_;
  // Deliveries hold it shared, start() and stop() alone: after stop() returns
  // the sink is not called again.
  std::shared_mutex sink_mutex_;
  bool running_ = false;
  std::atomic<std::uint64_t> published_{0};
  std::atomic<std::uint64_t> delivered_{0};
};

/// The number in an in-process id, or nothing when `id` is not one.
std::optional<std::uint64_t> parse_bus_id(std::string_view id) noexcept;

}  // namespace stet::detail
