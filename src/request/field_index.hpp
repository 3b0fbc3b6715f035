#pragma once
// Name-sorted copies of (name, value) lists, so that "first value" and "every
// value" of a name are a binary search and a contiguous span. Shared by the
// header map, the cookie jar and urlencoded forms.

#include "request/arena.hpp"
#include "http/token.hpp"

#include <algorithm>
#include <cstdint>
#include <memory_resource>
#include <span>
#include <string_view>

namespace stet::detail {

// Names are short (a few to a few dozen bytes): an inline byte loop beats a
// call to memcmp, and function objects (not pointers) let equal_run inline them.

/// Three-way byte comparison of an already-lowercase `lower` with `key` folded to lowercase.
struct compare_folded {
  constexpr int operator()(std::string_view lower, std::string_view key) const noexcept {
    const std::size_t n = std::min(lower.size(), key.size());
    for (std::size_t i = 0; i < n; ++i) {
      const auto a = static_cast<unsigned char>(lower[i]);
      const auto b = static_cast<unsigned char>(ascii_lower(key[i]));
      if (a != b) return a < b ? -1 : 1;
    }
    return lower.size() == key.size() ? 0 : (lower.size() < key.size() ? -1 : 1);
  }
};

/// Three-way unsigned byte comparison, as std::string_view::compare.
struct compare_exact {
  constexpr int operator()(std::string_view a, std::string_view b) const noexcept {
    const std::size_t n = std::min(a.size(), b.size());
    for (std::size_t i = 0; i < n; ++i) {
      const auto x = static_cast<unsigned char>(a[i]);
      const auto y = static_cast<unsigned char>(b[i]);
      if (x != y) return x < y ? -1 : 1;
    }
    return a.size() == b.size() ? 0 : (a.size() < b.size() ? -1 : 1);
  }
};

/// Sorts `fields` by name, keeping arrival order among equal names. Small lists
/// (the normal case) use insertion sort; large ones sort an index array in the
/// arena, because std::stable_sort would take its buffer from the heap.
template <typename Field>
void stable_sort_by_name(std::span<Field> fields, std::pmr::memory_resource& arena) {
  const std::size_t n = fields.size();
  if (n <= 32) {
    for (std::size_t i = 1; i < n; ++i) {
      const Field moving = fields[i];
      std::size_t j = i;
      for (; j > 0 && compare_exact{}(moving.name, fields[j - 1].name) < 0; --j) fields[j] = fields[j - 1];
      fields[j] = moving;
    }
    return;
  }
  auto* order = arena_array<std::uint32_t>(arena, n);
  for (std::size_t i = 0; i < n; ++i) order[i] = static_cast<std::uint32_t>(i);
  std::sort(order, order + n, [&](std::uint32_t a, std::uint32_t b) {
    const int c = fields[a].name.compare(fields[b].name);
    return c < 0 || (c == 0 && a < b);
  });
  auto* sorted = arena_array<Field>(arena, n);
  for (std::size_t i = 0; i < n; ++i) sorted[i] = fields[order[i]];
  std::copy(sorted, sorted + n, fields.begin());
}

/// A name-sorted copy of `arrival` in `arena`.
template <typename Field>
std::span<const Field> sorted_copy(std::span<const Field> arrival, std::pmr::memory_resource& arena) {
  Field* copy = arena_array<Field>(arena, arrival.size());
  std::copy(arrival.begin(), arrival.end(), copy);
  std::span<Field> out(copy, arrival.size());
  stable_sort_by_name(out, arena);
  return out;
}

/// The run of fields named `key` in a name-sorted list; `compare` is
/// compare_exact or compare_folded. Short lists (the usual request has a
/// handful of cookies or query args and about 15 headers) are scanned, since
/// unequal lengths reject most names without touching their bytes; longer ones
/// are binary-searched.
template <typename Field, typename Compare>
std::span<const Field> equal_run(std::span<const Field> sorted, std::string_view key, Compare compare) noexcept {
  constexpr std::size_t scan_limit = 16;
  if (sorted.size() <= scan_limit) {
    std::size_t first = 0;
    while (first < sorted.size() &&
           (sorted[first].name.size() != key.size() || compare(sorted[first].name, key) != 0)) {
      ++first;
    }
    std::size_t last = first;
    while (last < sorted.size() && sorted[last].name.size() == key.size() && compare(sorted[last].name, key) == 0) {
      ++last;
    }
    return sorted.subspan(first, last - first);
  }
  const auto first =
      std::partition_point(sorted.begin(), sorted.end(), [&](const Field& f) { return compare(f.name, key) < 0; });
  const auto last =
      std::partition_point(first, sorted.end(), [&](const Field& f) { return compare(f.name, key) == 0; });
  return sorted.subspan(static_cast<std::size_t>(first - sorted.begin()), static_cast<std::size_t>(last - first));
}

}  // namespace stet::detail
