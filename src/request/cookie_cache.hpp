#pragma once
// The per-thread cookie cache: browsers send the same Cookie header on every
// request, so its parse is remembered across requests, keyed by the exact bytes.

#include <stet/cookies.hpp>

#include <cstddef>
#include <memory_resource>
#include <string_view>

namespace stet::detail {

inline constexpr std::size_t cookie_cache_capacity = 128;
inline constexpr std::size_t cookie_cache_max_header_bytes = 8 * 1024;

/// The cookies of `header` for one request, as parse_cookie_header() would
/// return them (views into `header`, lists in `arena`), from the calling
/// thread's cache when it has seen these exact bytes. Headers over
/// cookie_cache_max_header_bytes are parsed and not cached.
cookie_jar cached_cookie_jar(std::string_view header, std::pmr::memory_resource& arena);

/// Test and benchmark hooks on the calling thread's cache.
std::size_t cookie_cache_size() noexcept;
/// Whether `header` is cached, without refreshing its recency.
bool cookie_cache_contains(std::string_view header) noexcept;
void cookie_cache_clear() noexcept;
/// Off: cached_cookie_jar() parses every time (the uncached baseline).
void cookie_cache_enable(bool enabled) noexcept;

}  // namespace stet::detail
