#include "http/host_syntax.hpp"

#include "http/token.hpp"

#include <array>
#include <cctype>

namespace stet::detail {
namespace {

// RFC 3986 unreserved / pct-encoded / sub-delims. A table: every request's
// Host goes through it, character by character.
constexpr std::array<bool, 256> reg_name_table = alnum_and("-._~%!$&'()*+,;=");

constexpr bool is_reg_name_char(char c) noexcept { return reg_name_table[static_cast<unsigned char>(c)]; }

}  // namespace

bool valid_host(std::string_view host) noexcept {
  std::string_view port;
  if (!host.empty() && host.front() == '[') {
    const std::size_t close = host.find(']');
    if (close == std::string_view::npos) return false;
    for (char c : host.substr(1, close - 1)) {
      if (!std::isxdigit(static_cast<unsigned char>(c)) && c != ':' && c != '.') return false;
    }
    const std::string_view rest = host.substr(close + 1);
    if (!rest.empty() && rest.front() != ':') return false;
    port = rest.empty() ? rest : rest.substr(1);
  } else {
    const std::size_t colon = host.find(':');
    for (char c : host.substr(0, colon)) {
      if (!is_reg_name_char(c)) return false;
    }
    port = colon == std::string_view::npos ? std::string_view() : host.substr(colon + 1);
  }
  for (char c : port) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  }
  return port.size() <= 5;
}

std::optional<std::uint16_t> parse_port(std::string_view digits) noexcept {
  if (digits.empty() || digits.size() > 5) return std::nullopt;
  unsigned value = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + static_cast<unsigned>(c - '0');
  }
  if (value > 65535) return std::nullopt;
  return static_cast<std::uint16_t>(value);
}

}  // namespace stet::detail
