#pragma once
// The one way a fuzz target reports a broken property: print what broke and
// abort, so libFuzzer records the input as a crash (sanitizers do the rest).

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace stet::fuzz {

/// Aborts with `what` (and the offending text, if any) unless `ok`.
inline void require(bool ok, const char* what, std::string_view detail = {}) {
  if (ok) return;
  std::fprintf(stderr, "fuzz property broken: %s [%.*s]\n", what, static_cast<int>(detail.size()), detail.data());
  std::abort();
}

/// Whether `part` lies inside `whole` (a view into it, not a copy). Compared
/// as integers: `<` between pointers into different objects is unspecified.
inline bool is_view_into(std::string_view part, std::string_view whole) noexcept {
  if (part.empty()) return true;  // an empty view may point anywhere
  const auto p = reinterpret_cast<std::uintptr_t>(part.data());
  const auto w = reinterpret_cast<std::uintptr_t>(whole.data());
  return p >= w && p + part.size() <= w + whole.size();
}

}  // namespace stet::fuzz
