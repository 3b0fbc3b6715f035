#pragma once
// Reading the Redis bus's replies (hiredis redisReply trees) into bus types:
// kept apart from the connection code so the shapes are checked in one place
// and a malformed reply is a value, never a crash.

#include "pubsub/bus.hpp"
#include "pubsub/stream_id.hpp"

#include <optional>
#include <string_view>

struct redisReply;

namespace stet::detail {

/// A pub/sub push `["message", PREFIX TOPIC, "ID\nDATA"]` as an event (views
/// into `reply`); nullopt for anything else (subscribe confirmations too).
std::optional<bus_event> read_message(const redisReply* reply, std::string_view channel_prefix) noexcept;

/// A subscribe confirmation `["subscribe", PREFIX TOPIC, count]`: the topic
/// (a view into `reply`); nullopt for anything else.
std::optional<std::string_view> read_subscribed(const redisReply* reply, std::string_view channel_prefix) noexcept;

/// The replay script's answer for a client whose last id was `last`: the
/// events after it, and whether any were trimmed away in between. A null or
/// error reply is `failed`.
bus_replay read_replay(const redisReply* reply, stream_id last);

/// The text of an error reply (e.g. "NOSCRIPT ..."), empty for other replies.
std::string_view reply_error(const redisReply* reply) noexcept;

}  // namespace stet::detail
