#pragma once
// The shortest round-trip form of a double, as std::to_chars(first, last, x)
// writes it (the same characters), with a fast path for the values JSON
// documents are mostly made of: up to 15 significant digits and a magnitude
// between 1e-7 and 1e15 (prices, ratios, coordinates, counts as doubles).
// std::to_chars' general algorithm costs several hundred instructions per
// value; for these values the digits fall out of one scaled rounding.

#include <cstddef>

namespace stet::json::detail {

/// Room write_shortest() needs: "-2.2250738585072014e-308" and some.
inline constexpr std::size_t shortest_double_room = 32;

/// Writes what std::to_chars(dst, dst + shortest_double_room, x) would write
/// for a finite `x` and returns the end. `dst` has shortest_double_room bytes.
char* write_shortest(char* dst, double x) noexcept;

/// The fast path alone: null when `x` is outside it (the caller then uses
/// std::to_chars), else the end of the same characters std::to_chars writes.
/// Exposed for the tests, which compare it with std::to_chars.
char* write_shortest_fast(char* dst, double x) noexcept;

}  // namespace stet::json::detail
