#include "pubsub/redis_url.hpp"

#include <charconv>
#include <cstdint>
#include <utility>

namespace stet::detail {

namespace {

redis_url refuse(std::string why) { return {{}, {}, std::move(why)}; }

constexpr std::uint32_t max_timeout_ms = 600000;

// The part after '?': `timeout_ms=N` and nothing else. Empty on success.
std::string read_query(std::string_view query, redis_url& out) {
  constexpr std::string_view timeout = "timeout_ms=";
  const std::size_t amp = query.find('&');
  const std::string_view other = !query.starts_with(timeout)     ? query
                                 : amp != std::string_view::npos ? query.substr(amp + 1)
                                                                 : std::string_view();
  if (other.data() != nullptr) {
    const std::string_view name = other.substr(0, other.find_first_of("=&"));
    return "query parameter '" + std::string(name) + "' is not supported (only timeout_ms)";
  }
  const std::string_view n = query.substr(timeout.size());
  std::uint32_t value = 0;
  const auto [end, ec] = std::from_chars(n.data(), n.data() + n.size(), value);
  if (n.empty() || ec != std::errc{} || end != n.data() + n.size() || value > max_timeout_ms)
    return "timeout_ms is not a number of milliseconds from 0 to 600000";
  out.reply_timeout = std::chrono::milliseconds(value);
  return {};
}

bool host_byte(char c) noexcept {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '_';
}

}  // namespace

redis_url parse_redis_url(std::string_view url) {
  constexpr std::string_view scheme = "redis://";
  if (!url.starts_with(scheme)) return refuse("not a redis:// URL");
  std::string_view rest = url.substr(scheme.size());
  if (rest.find('@') != std::string_view::npos) return refuse("credentials in the URL are not supported");
  if (rest.find('#') != std::string_view::npos) return refuse("a fragment is not supported");
  std::string_view query;
  bool has_query = false;
  if (const std::size_t q = rest.find('?'); q != std::string_view::npos) {
    query = rest.substr(q + 1);
    rest = rest.substr(0, q);
    has_query = true;
  }
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
  if (has_query) {
    if (std::string why = read_query(query, out); !why.empty()) return refuse(std::move(why));
  }
  return out;
}

}  // namespace stet::detail
