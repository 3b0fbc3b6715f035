#pragma once
// A request's key under a route's policy: the route, the raw path, the query
// (whole, or only the arguments the policy names) and the request headers the
// policy lists. Built into a per-thread buffer, so a lookup allocates nothing
// once the buffer has grown to the longest key seen.

#include <stet/request.hpp>
#include <stet/response_cache.hpp>

#include <cstdint>
#include <string_view>

namespace stet::detail {

/// Whether `req` may use the cache at all under `policy`: GET or HEAD, and no
/// Authorization or Cookie unless the policy puts that header in the key.
bool may_use_cache(const request& req, const cache_policy& policy) noexcept;

/// The key of `req` for the route `route`; valid until the next call on this thread.
std::string_view build_cache_key(const request& req, std::uint32_t route, const cache_policy& policy);

}  // namespace stet::detail
