#pragma once
// base64url without padding (RFC 4648 section 5): the alphabet that needs no
// quoting in cookies, URLs or header values.

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace stet::detail {

inline constexpr std::string_view base64url_alphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

// Each character's 6-bit value; 0xff for a character outside the alphabet.
inline constexpr std::array<std::uint8_t, 256> base64url_values = [] {
  std::array<std::uint8_t, 256> table{};
  table.fill(0xff);
  for (std::size_t i = 0; i < base64url_alphabet.size(); ++i) {
    table[static_cast<unsigned char>(base64url_alphabet[i])] = static_cast<std::uint8_t>(i);
  }
  return table;
}();

/// Characters needed for `n` bytes.
constexpr std::size_t base64url_encoded_size(std::size_t n) noexcept { return (n * 4 + 2) / 3; }

/// Writes base64url_encoded_size(in.size()) characters to `out`.
constexpr void base64url_encode(std::span<const unsigned char> in, char* out) noexcept {
  std::size_t i = 0;
  for (; i + 3 <= in.size(); i += 3) {
    const std::uint32_t v = (std::uint32_t{in[i]} << 16) | (std::uint32_t{in[i + 1]} << 8) | in[i + 2];
    *out++ = base64url_alphabet[(v >> 18) & 63];
    *out++ = base64url_alphabet[(v >> 12) & 63];
    *out++ = base64url_alphabet[(v >> 6) & 63];
    *out++ = base64url_alphabet[v & 63];
  }
  const std::size_t rest = in.size() - i;
  if (rest == 0) return;
  std::uint32_t v = std::uint32_t{in[i]} << 16;
  if (rest == 2) v |= std::uint32_t{in[i + 1]} << 8;
  *out++ = base64url_alphabet[(v >> 18) & 63];
  *out++ = base64url_alphabet[(v >> 12) & 63];
  if (rest == 2) *out++ = base64url_alphabet[(v >> 6) & 63];
}

/// Bytes `text` decodes to; nullopt for a length no encoding produces.
constexpr std::optional<std::size_t> base64url_decoded_size(std::size_t chars) noexcept {
  if (chars % 4 == 1) return std::nullopt;
  return chars / 4 * 3 + (chars % 4 == 0 ? 0 : chars % 4 - 1);
}

/// Decodes `text` into `out` (base64url_decoded_size() bytes). False for a
/// character outside the alphabet, an impossible length, or non-zero unused
/// bits in the last character: only the canonical encoding is accepted.
constexpr bool base64url_decode(std::string_view text, unsigned char* out) noexcept {
  if (text.size() % 4 == 1) return false;
  std::uint32_t acc = 0;
  int bits = 0;
  for (char c : text) {
    const std::uint32_t v = base64url_values[static_cast<unsigned char>(c)];
    if (v > 63) return false;
    acc = (acc << 6) | v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      *out++ = static_cast<unsigned char>((acc >> bits) & 0xff);
    }
  }
  return (acc & ((1u << bits) - 1)) == 0;
}

}  // namespace stet::detail
