#pragma once
// The `redis://HOST:PORT` form of server_options::pubsub, read once at start.

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace stet::detail {

/// Where the Redis bus connects.
struct redis_address {
  std::string host;  // a name or an IP literal (an IPv6 one without its brackets)
  std::uint16_t port = 6379;
};

/// A parsed URL, or why it is not one (`why` empty on success).
struct redis_url {
  redis_address address;
  std::optional<std::chrono::milliseconds> reply_timeout;  // `?timeout_ms=N`; absent: the bus's default
  std::string why;
};

/// Reads `redis://HOST[:PORT][/][?timeout_ms=N]`: HOST a name, an IPv4
/// literal or a bracketed IPv6 literal, PORT 1-65535 (default 6379), N 0 to
/// 600000 (redis_bus_options::reply_timeout; 0: never). Credentials, a
/// database number, a fragment and any other query parameter are refused by
/// name rather than ignored, so a URL never means less than it says.
redis_url parse_redis_url(std::string_view url);

}  // namespace stet::detail
