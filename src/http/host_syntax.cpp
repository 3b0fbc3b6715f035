#include "http/host_syntax.hpp"

#include <cctype>

namespace stet::detail {

bool valid_bracketed_host(std::string_view host) noexcept {
  const std::size_t close = host.find(']');
  if (close == std::string_view::npos) return false;
  for (char c : host.substr(1, close - 1)) {
    if (!std::isxdigit(static_cast<unsigned char>(c)) && c != ':' && c != '.') return false;
  }
  std::string_view port = host.substr(close + 1);
  if (port.empty()) return true;
  if (port.front() != ':') return false;
  port.remove_prefix(1);
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
