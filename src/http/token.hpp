#pragma once
// Character classes of RFC 9110 section 5.6 and ASCII case folding: the few
// predicates both the request parser and the response builder need.

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace stet::detail {

/// A character class as a table: ASCII letters and digits plus `extra`.
constexpr std::array<bool, 256> alnum_and(std::string_view extra) noexcept {
  std::array<bool, 256> table{};
  for (int c = '0'; c <= '9'; ++c) table[c] = true;
  for (int c = 'a'; c <= 'z'; ++c) table[c] = true;
  for (int c = 'A'; c <= 'Z'; ++c) table[c] = true;
  for (char c : extra) table[static_cast<unsigned char>(c)] = true;
  return table;
}

inline constexpr std::array<bool, 256> tchar_table = alnum_and("!#$%&'*+-.^_`|~");

constexpr bool is_tchar(char c) noexcept { return tchar_table[static_cast<unsigned char>(c)]; }

/// A non-empty RFC 9110 token (header names, methods, cookie names).
constexpr bool is_token(std::string_view s) noexcept {
  if (s.empty()) return false;
  for (char c : s) {
    if (!is_tchar(c)) return false;
  }
  return true;
}

/// field-value: visible ASCII, SP, HTAB and obs-text; never CR, LF, NUL or DEL.
constexpr bool is_field_value(std::string_view s) noexcept {
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if ((c < 0x20 && c != '\t') || c == 0x7f) return false;
  }
  return true;
}

constexpr char ascii_lower(char c) noexcept { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c + ('a' - 'A')) : c; }

constexpr bool iequals(std::string_view a, std::string_view b) noexcept {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (ascii_lower(a[i]) != ascii_lower(b[i])) return false;
  }
  return true;
}

constexpr std::string_view trim_ows(std::string_view s) noexcept {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

/// Calls `visit(element)` for each element of a comma-separated list (RFC 9110
/// 5.6.1: `#element`), OWS (SP or HTAB) trimmed, empty elements skipped. For
/// lists whose elements cannot hold a quoted comma (tokens, addresses).
template <class Visit>
constexpr void for_each_list_element(std::string_view list, Visit&& visit) {
  while (!list.empty()) {
    const std::size_t comma = list.find(',');
    const std::string_view element = trim_ows(list.substr(0, comma));
    list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
    if (!element.empty()) visit(element);
  }
}

}  // namespace stet::detail
