#pragma once
// The two string encoders behind stet::json: one into a raw buffer with room for
// the worst case (short strings, through the writer's staging buffer), one that
// appends runs straight to a std::string (long strings, json::escape()). Both apply
// the same policy through the same byte tables.

#include <cstddef>
#include <string>
#include <string_view>

namespace stet::json::detail {

/// Strings up to this size go through the staging buffer.
inline constexpr std::size_t short_string = 64;

/// Room escape_to() needs for `n` input bytes: six per byte (\u00XX) plus the
/// overshoot of its eight-byte stores.
constexpr std::size_t escape_bound(std::size_t n) noexcept { return 6 * n + 8; }

/// Writes `text` escaped to `dst`, which has escape_bound(text.size()) bytes of
/// room; returns the end of what was written.
char* escape_to(char* dst, std::string_view text) noexcept;

/// Appends `text` escaped to `out`, copying each run of bytes that need no work
/// with one append.
void escape_runs(std::string& out, std::string_view text);

}  // namespace stet::json::detail
