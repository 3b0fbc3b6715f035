#pragma once
// An invalidation as it travels between instances on the bus: which cache
// instance sent it (so the sender, which applied it when it was made, skips
// its own), the cache's name (response_cache_options::name: the caches of one
// name on every instance are one cache), and what it covers: a tag, a route
// by name (route indexes differ between instances; names do not), or all.

#include "cache/invalidation_log.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace stet::detail {

struct invalidation_message {
  std::uint64_t origin = 0;
  std::string_view cache;
  invalidation_log::scope what = invalidation_log::scope::all;
  std::string_view value;  // the tag or the route's name; empty for all
};

/// The bytes on the bus: "<origin, 16 hex digits> <a|r|t> <name length> <name><value>".
/// @throws std::bad_alloc
std::string encode(const invalidation_message& m);
/// The message in `bytes` (views into them), or nullopt when they are not one.
std::optional<invalidation_message> decode(std::string_view bytes) noexcept;

}  // namespace stet::detail
