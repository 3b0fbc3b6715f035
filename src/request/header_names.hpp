#pragma once
// Lowercase header names for the header map, through a bounded per-thread
// cache so that the steady state neither allocates nor re-folds names.

#include <cstddef>
#include <memory_resource>
#include <string_view>

namespace stet::detail {

/// Most distinct mixed-case names one thread keeps, and the longest name kept.
inline constexpr std::size_t header_name_cache_capacity = 256;
inline constexpr std::size_t header_name_cache_max_length = 64;

/// The ASCII-lowercase form of `name`: `name` itself when it has no uppercase
/// letter; else a copy owned by the calling thread's cache (valid for the
/// thread's life); else, when the cache is full or the name too long, a copy in
/// `arena`.
std::string_view lowercase_header_name(std::string_view name, std::pmr::memory_resource& arena);

/// Names the calling thread's cache holds (test hook).
std::size_t header_name_cache_size() noexcept;

}  // namespace stet::detail
