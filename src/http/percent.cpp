#include "http/percent.hpp"

#include <algorithm>
#include <array>

namespace stet::detail {
namespace {

// RFC 3986 pchar minus '%': what a path segment may carry unencoded.
constexpr std::array<bool, 256> segment_safe = [] {
  std::array<bool, 256> safe{};
  for (int c = 'a'; c <= 'z'; ++c) safe[static_cast<std::size_t>(c)] = true;
  for (int c = 'A'; c <= 'Z'; ++c) safe[static_cast<std::size_t>(c)] = true;
  for (int c = '0'; c <= '9'; ++c) safe[static_cast<std::size_t>(c)] = true;
  for (const char c : std::string_view("-._~!$&'()*+,;=:@")) safe[static_cast<unsigned char>(c)] = true;
  return safe;
}();

}  // namespace

void append_percent_encoded(std::string& out, std::string_view text, path_slashes slashes) {
  const bool keep_slash = slashes == path_slashes::keep;
  const auto safe = [keep_slash](char c) noexcept {
    return segment_safe[static_cast<unsigned char>(c)] || (keep_slash && c == '/');
  };
  // Most segments ("users", "42", "css/site.css") need no encoding: one append.
  if (std::all_of(text.begin(), text.end(), safe)) {
    out.append(text);
    return;
  }
  constexpr std::string_view hex = "0123456789ABCDEF";
  for (const char c : text) {
    if (safe(c)) {
      out += c;
    } else {
      const auto byte = static_cast<unsigned char>(c);
      out += '%';
      out += hex[byte >> 4];
      out += hex[byte & 0xf];
    }
  }
}

std::optional<std::string_view> percent_decode_path(std::string_view raw, std::pmr::memory_resource& arena) {
  const std::size_t first = raw.find('%');
  if (first == std::string_view::npos) return raw;

  auto* out = static_cast<char*>(arena.allocate(raw.size(), 1));
  std::size_t n = first;
  raw.copy(out, first);
  for (std::size_t i = first; i < raw.size(); ++i) {
    if (raw[i] != '%') {
      out[n++] = raw[i];
      continue;
    }
    if (i + 2 >= raw.size()) return std::nullopt;
    const int hi = hex_value(raw[i + 1]);
    const int lo = hex_value(raw[i + 2]);
    if (hi < 0 || lo < 0) return std::nullopt;
    const char decoded = static_cast<char>(hi * 16 + lo);
    if (decoded == '\0') return std::nullopt;
    out[n++] = decoded;
    i += 2;
  }
  return std::string_view(out, n);
}

}  // namespace stet::detail
