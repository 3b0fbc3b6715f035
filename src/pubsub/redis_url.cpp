#include "pubsub/redis_url.hpp"

#include <charconv>

namespace stet::detail {

namespace {

redis_url refuse(std::string why) { return {{}, std::move(why)}; }

bool host_byte(char c) noexcept {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '_';
}

}  // namespace

redis_url parse_redis_url(std::string_view url) {
  constexpr std::string_view scheme = "redis://";
  if (!url.starts_with(scheme)) return refuse("not a redis:// URL");
  std::string_view rest = url.substr(scheme.size());
  if (rest.find('@') != std::string_view::npos) return refuse("credentials in the URL are not supported");
  if (rest.find_first_of("?#") != std::string_view::npos) return refuse("query parameters are not supported");
  const std::size_t slash = rest.find('/');
  if (slash != std::string_view::npos) {
    if (slash + 1 != rest.size()) return refuse("a database number is not supported (topics use database 0)");
    rest = rest.substr(0, slash);
  }
  redis_url out;
  std::string_view port;
  bool has_port = false;
  if (rest.starts_with('[')) {
    const std::size_t close = rest.find(']');
    if (close == std::string_view::npos) return refuse("unclosed '[' in the host");
    out.address.host = rest.substr(1, close - 1);
    if (out.address.host.find_first_not_of("0123456789abcdefABCDEF:.") != std::string::npos)
      return refuse("not an IPv6 literal between '[' and ']'");
    rest = rest.substr(close + 1);
    if (!rest.empty() && !rest.starts_with(':')) return refuse("unexpected text after ']'");
    has_port = !rest.empty();
    if (has_port) port = rest.substr(1);
  } else {
    const std::size_t colon = rest.find(':');
    out.address.host = rest.substr(0, colon);
    has_port = colon != std::string_view::npos;
    if (has_port) port = rest.substr(colon + 1);
    for (const char c : out.address.host)
      if (!host_byte(c)) return refuse("the host has a character outside a-z, 0-9, '.', '-', '_'");
  }
  if (out.address.host.empty()) return refuse("no host");
  if (has_port) {
    unsigned value = 0;
    const auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
    if (port.empty() || ec != std::errc{} || end != port.data() + port.size() || value == 0 || value > 65535)
      return refuse("the port is not a number from 1 to 65535");
    out.address.port = static_cast<std::uint16_t>(value);
  }
  return out;
}

}  // namespace stet::detail
