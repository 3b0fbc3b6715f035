#pragma once
// Typed allocation from a request arena. Everything placed here is trivially
// destructible: the arena is released wholesale after each request and runs no
// destructors.

#include <cstring>
#include <memory_resource>
#include <new>
#include <string_view>
#include <type_traits>
#include <utility>

namespace stet::detail {

/// `n` value-initialised T in `arena`; nullptr when `n` is 0.
template <typename T>
T* arena_array(std::pmr::memory_resource& arena, std::size_t n) {
  static_assert(std::is_trivially_destructible_v<T>, "the arena never runs destructors");
  if (n == 0) return nullptr;
  T* out = static_cast<T*>(arena.allocate(n * sizeof(T), alignof(T)));
  for (std::size_t i = 0; i < n; ++i) ::new (static_cast<void*>(out + i)) T{};
  return out;
}

/// One T constructed in `arena`.
template <typename T, typename... Args>
T* arena_new(std::pmr::memory_resource& arena, Args&&... args) {
  static_assert(std::is_trivially_destructible_v<T>, "the arena never runs destructors");
  return ::new (arena.allocate(sizeof(T), alignof(T))) T(std::forward<Args>(args)...);
}

/// A copy of `s` in `arena`.
inline std::string_view arena_copy(std::pmr::memory_resource& arena, std::string_view s) {
  if (s.empty()) return {};
  char* out = static_cast<char*>(arena.allocate(s.size(), 1));
  std::memcpy(out, s.data(), s.size());
  return {out, s.size()};
}

}  // namespace stet::detail
