#pragma once
// The text rules of RFC 9110 5.6 written plainly for the fuzz targets'
// reference implementations: independent of stet's own parsers, which they
// check, and shared so that each reference reads only its own grammar.

#include <string>
#include <string_view>

namespace stet::fuzz::reference {

inline std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  return out;
}

/// OWS: space or horizontal tab.
inline bool ows(char c) { return c == ' ' || c == '\t'; }

inline std::string_view trim(std::string_view s) {
  while (!s.empty() && ows(s.front())) s.remove_prefix(1);
  while (!s.empty() && ows(s.back())) s.remove_suffix(1);
  return s;
}

/// tchar (RFC 9110 5.6.2).
inline bool tchar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

}  // namespace stet::fuzz::reference
