#pragma once
// The Redis bus: topics that reach every instance connected to one Redis.
// Declared here, without Asio, so the bus factory can name it; built in
// src/net/redis/ (hiredis over Asio on a thread of its own).
//
// Per topic, one Redis stream holds the history (ids, a bounded length) and
// one pub/sub channel carries deliveries; a publish is one script that adds
// to the stream and publishes the new id with the data, so the ids and the
// delivery order agree on every instance.

#include "pubsub/bus.hpp"
#include "pubsub/redis_url.hpp"

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>

namespace stet::detail {

struct redis_bus_options {
  redis_address address;
  /// Keys are PREFIX "s:" TOPIC (the stream), channels PREFIX "c:" TOPIC.
  std::string prefix = "stet:";
  /// Entries kept per topic (XADD MAXLEN ~: Redis trims whole nodes, so a few
  /// more may stay).
  std::size_t history = 1000;
  /// A topic's history expires this long after its last publish, so topics
  /// nobody uses any more do not stay in Redis for ever.
  std::chrono::milliseconds history_ttl{std::chrono::hours(24)};
  /// Publishes accepted and not yet answered by Redis, at most; one more is
  /// refused (publish() returns false, counted in `refused`).
  std::size_t max_outstanding = 4096;
  /// Replays waiting for Redis, at most; one more fails at once.
  std::size_t max_replays = 256;
  /// Reconnection delays: doubled from `reconnect_min` up to `reconnect_max`,
  /// each one drawn between half and all of it (jitter, so instances that
  /// lost the same Redis do not come back in step).
  std::chrono::milliseconds reconnect_min{100};
  std::chrono::milliseconds reconnect_max{5000};
  /// A connection on which Redis has said nothing for this long (a probe goes
  /// after a third of it) is dropped like a lost one: a Redis that is paused
  /// or wedged accepts bytes and closes nothing. 0: never.
  std::chrono::milliseconds reply_timeout{3000};
};

/// A bus over the Redis at `options.address`. It never refuses to exist:
/// without Redis it starts disconnected (stats().connected false), refuses
/// publishes, fails replays and keeps reconnecting.
std::unique_ptr<bus> make_redis_bus(redis_bus_options options);

}  // namespace stet::detail
