#include "net/redis/redis_replies.hpp"

#include <hiredis/hiredis.h>

namespace stet::detail {

namespace {

std::string_view text(const redisReply* r) noexcept {
  if (r == nullptr || (r->type != REDIS_REPLY_STRING && r->type != REDIS_REPLY_STATUS)) return {};
  return {r->str, r->len};
}

const redisReply* item(const redisReply* r, std::size_t i) noexcept {
  if (r == nullptr || r->type != REDIS_REPLY_ARRAY || i >= r->elements) return nullptr;
  return r->element[i];
}

// A stream entry [id, [field, value, ...]]: the value of `field`.
std::string_view entry_field(const redisReply* entry, std::string_view field) noexcept {
  const redisReply* fields = item(entry, 1);
  for (std::size_t i = 0; fields != nullptr && i + 1 < fields->elements; i += 2) {
    if (text(fields->element[i]) == field) return text(fields->element[i + 1]);
  }
  return {};
}

}  // namespace

std::optional<bus_event> read_message(const redisReply* reply, std::string_view channel_prefix) noexcept {
  if (text(item(reply, 0)) != "message" || item(reply, 2) == nullptr) return std::nullopt;
  const std::string_view channel = text(item(reply, 1));
  const std::string_view payload = text(item(reply, 2));
  const std::size_t newline = payload.find('\n');
  if (!channel.starts_with(channel_prefix) || newline == std::string_view::npos) return std::nullopt;
  return bus_event{channel.substr(channel_prefix.size()), payload.substr(0, newline), payload.substr(newline + 1)};
}

std::optional<std::string_view> read_subscribed(const redisReply* reply, std::string_view channel_prefix) noexcept {
  const std::string_view channel = text(item(reply, 1));
  if (text(item(reply, 0)) != "subscribe" || !channel.starts_with(channel_prefix)) return std::nullopt;
  return channel.substr(channel_prefix.size());
}

bus_replay read_replay(const redisReply* reply, stream_id last) {
  bus_replay out;
  const redisReply* first = item(item(reply, 0), 0);
  const redisReply* events = item(reply, 1);
  if (events == nullptr || events->type != REDIS_REPLY_ARRAY) {
    out.failed = true;
    return out;
  }
  // No stream at all: the client holds an id of a history Redis no longer has
  // (expired, or Redis restarted without persistence).
  const std::optional<stream_id> first_id = parse_stream_id(text(item(first, 0)));
  if (!first_id) {
    out.complete = false;
  } else if (last < *first_id) {
    // Entries before the first were trimmed: nothing is missing only when the
    // first one directly followed the client's last.
    const std::optional<stream_id> before_first = parse_stream_id(entry_field(first, "p"));
    out.complete = before_first && *before_first == last;
  }
  out.events.reserve(events->elements);
  for (std::size_t i = 0; i < events->elements; ++i) {
    const redisReply* e = events->element[i];
    out.events.push_back({std::string(text(item(e, 0))), std::string(entry_field(e, "d"))});
  }
  return out;
}

std::string_view reply_error(const redisReply* reply) noexcept {
  if (reply == nullptr || reply->type != REDIS_REPLY_ERROR) return {};
  return {reply->str, reply->len};
}

}  // namespace stet::detail
