#pragma once
// The two string encoders behind stet::json: one into a raw buffer with room for
// the worst case (short strings, through the writer's staging buffer), one that
// appends runs straight to a std::string (long strings, json::escape()). Both apply
// the same policy through the same byte tables.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace stet::json::detail {

template <typename Word>
constexpr Word broadcast(unsigned char b) noexcept {
  return static_cast<Word>(0x0101010101010101ULL) * b;
}

/// Eight (or four) bytes at once: a high bit set in each byte that is below
/// 0x20, '"', '\\' or above 0x7F. These are the classic has-zero-byte tests: a
/// borrow can only flag bytes above a truly flagged one, so the lowest flag is
/// exact (on little-endian machines, the lowest address), and zero means none.
template <typename Word = std::uint64_t>
Word special_bytes(const unsigned char* p) noexcept {
  Word w;
  std::memcpy(&w, p, sizeof w);
  const Word quote = w ^ broadcast<Word>('"');
  const Word backslash = w ^ broadcast<Word>('\\');
  const Word flagged = ((w - broadcast<Word>(0x20)) & ~w) | ((quote - broadcast<Word>(1)) & ~quote) |
                       ((backslash - broadcast<Word>(1)) & ~backslash) | w;
  return flagged & broadcast<Word>(0x80);
}

/// Most keys and many short values need no escaping: a text of 4 to 16 bytes
/// is checked as two overlapping words and, when plain, copied as such to
/// `dst`; returns the end. Null (nothing meaningful written) for any other
/// text, which then goes through escape_to(). Inline because it is the whole
/// of the work for such a text.
inline char* copy_if_short_and_plain(char* dst, std::string_view text) noexcept {
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  const std::size_t n = text.size();
  if (n >= 8 && n <= 16) {
    if ((special_bytes(p) | special_bytes(p + n - 8)) != 0) return nullptr;
    std::memcpy(dst, p, 8);
    std::memcpy(dst + n - 8, p + n - 8, 8);
    return dst + n;
  }
  if (n >= 4 && n < 8) {
    if ((special_bytes<std::uint32_t>(p) | special_bytes<std::uint32_t>(p + n - 4)) != 0) return nullptr;
    std::memcpy(dst, p, 4);
    std::memcpy(dst + n - 4, p + n - 4, 4);
    return dst + n;
  }
  return nullptr;
}

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
