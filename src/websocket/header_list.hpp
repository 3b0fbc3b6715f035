#pragma once
// The list syntax of the handshake's header fields (RFC 9110 5.6.1): elements
// separated by commas, a field possibly repeated (the same as one field with
// the values joined), whitespace around elements, and in extension offers
// parameters after semicolons whose values may be quoted strings.

#include "http/token.hpp"

#include <stet/headers.hpp>

#include <span>
#include <string_view>

namespace stet::detail::ws {

/// Takes the next `separator`-delimited part off the front of `rest` (a
/// separator inside a quoted string does not count) and returns it trimmed of
/// whitespace; `rest` becomes what follows the separator, or empty.
constexpr std::string_view take_element(std::string_view& rest, char separator) noexcept {
  bool quoted = false;
  std::size_t i = 0;
  for (; i < rest.size(); ++i) {
    const char c = rest[i];
    if (quoted && c == '\\') {
      ++i;  // a quoted-pair: the next character is literal
    } else if (c == '"') {
      quoted = !quoted;
    } else if (c == separator && !quoted) {
      break;
    }
  }
  const std::string_view element = trim_ows(rest.substr(0, i < rest.size() ? i : rest.size()));
  rest = i < rest.size() ? rest.substr(i + 1) : std::string_view{};
  return element;
}

/// Calls `fn(element)` for every non-empty element of every field named `name`
/// (ASCII case-insensitive), in order, until it returns true. Returns whether
/// it did.
template <class F>
constexpr bool any_list_element(std::span<const header_field> fields, std::string_view name, F&& fn) {
  for (const header_field& field : fields) {
    if (!iequals(field.name, name)) continue;
    std::string_view rest = field.value;
    while (!rest.empty()) {
      const std::string_view element = take_element(rest, ',');
      if (!element.empty() && fn(element)) return true;
    }
  }
  return false;
}

/// Whether some field named `name` lists `token` (ASCII case-insensitive).
constexpr bool lists_token(std::span<const header_field> fields, std::string_view name,
                           std::string_view token) noexcept {
  return any_list_element(fields, name, [token](std::string_view e) { return iequals(e, token); });
}

}  // namespace stet::detail::ws
