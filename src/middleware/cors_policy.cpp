#include "middleware/cors_policy.hpp"

#include "http/token.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <stdexcept>

namespace stet {
namespace detail {
namespace {

constexpr auto scheme_chars = alnum_and("+-.");
// A host as an origin serialises it: punycode labels, or an IPv4 address.
constexpr auto host_chars = alnum_and("-.");

constexpr bool is_alpha(char c) noexcept { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
constexpr bool is_ipv6_char(char c) noexcept {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F') || c == ':' || c == '.';
}
constexpr std::uint16_t bit(stet::method m) noexcept {
  return static_cast<std::uint16_t>(1u << static_cast<unsigned>(m));
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = ascii_lower(c);
  return out;
}

// Dot-separated, non-empty labels of host characters.
bool is_labels(std::string_view s) noexcept {
  if (s.empty() || s.front() == '.' || s.back() == '.') return false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (!host_chars[static_cast<unsigned char>(s[i])]) return false;
    if (s[i] == '.' && s[i - 1] == '.') return false;
  }
  return true;
}

std::string_view port_error(std::string_view port) noexcept {
  unsigned value = 0;
  const auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
  if (port.empty() || ec != std::errc() || end != port.data() + port.size() || value > 65535) {
    return "the port must be a number from 0 to 65535";
  }
  return {};
}

// "host", "host:port", "[v6]:port" or "*.host:port".
std::string_view authority_error(std::string_view a) noexcept {
  std::string_view host = a;
  if (a.starts_with('[')) {
    const std::size_t close = a.find(']');
    if (close == std::string_view::npos) return "an IPv6 host needs its closing ']'";
    host = a.substr(1, close - 1);
    const std::string_view after = a.substr(close + 1);
    if (!after.empty() && after.front() != ':') return "only \":port\" may follow an IPv6 host";
    if (!after.empty()) {
      if (std::string_view e = port_error(after.substr(1)); !e.empty()) return e;
    }
    const bool ok = !host.empty() && std::all_of(host.begin(), host.end(), is_ipv6_char);
    return ok ? std::string_view() : "an IPv6 host is hex digits, ':' and '.'";
  }
  if (const std::size_t colon = a.rfind(':'); colon != std::string_view::npos) {
    if (std::string_view e = port_error(a.substr(colon + 1)); !e.empty()) return e;
    host = a.substr(0, colon);
  }
  if (host.starts_with("*.")) host.remove_prefix(2);
  if (host.empty()) return "the origin has no host";
  if (host.find('*') != std::string_view::npos) {
    return "'*' may only stand alone (\"*\") or as the first label (\"https://*.example.com\")";
  }
  if (!is_labels(host)) {
    return "the host must be labels of letters, digits and '-' separated by single dots (punycode for "
           "international names)";
  }
  return {};
}

// Browsers send origins in lower case, so the first lookup nearly always
// decides; only an origin with an upper-case letter is folded and looked up again.
bool contains_folded(const std::unordered_set<std::string, origin_hash, std::equal_to<>>& set,
                     std::string_view origin) noexcept {
  if (set.find(origin) != set.end()) return true;
  if (origin.size() > max_origin_bytes ||
      std::none_of(origin.begin(), origin.end(), [](char c) { return c >= 'A' && c <= 'Z'; })) {
    return false;
  }
  std::array<char, max_origin_bytes> folded;
  std::transform(origin.begin(), origin.end(), folded.begin(), ascii_lower);
  return set.find(std::string_view(folded.data(), origin.size())) != set.end();
}

bool pattern_matches(const origin_pattern& p, std::string_view origin) noexcept {
  if (origin.size() <= p.scheme.size() + p.suffix.size()) return false;
  if (!iequals(origin.substr(0, p.scheme.size()), p.scheme)) return false;
  if (!iequals(origin.substr(origin.size() - p.suffix.size()), p.suffix)) return false;
  return is_labels(origin.substr(p.scheme.size(), origin.size() - p.scheme.size() - p.suffix.size()));
}

// Calls `each` with every non-empty item of a comma-separated list, OWS trimmed.
template <class Each>
bool for_each_item(std::string_view list, Each&& each) {
  while (!list.empty()) {
    const std::size_t comma = list.find(',');
    const std::string_view item = trim_ows(list.substr(0, comma));
    if (!item.empty() && !each(item)) return false;
    list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
  }
  return true;
}

void append_item(std::string& list, std::string_view item) {
  if (!list.empty()) list += ", ";
  list += item;
}

std::string header_list(const std::vector<std::string>& names, std::string_view what) {
  std::string value;
  for (const std::string& name : names) {
    if (name != "*" && !is_token(name)) {
      throw std::invalid_argument("stet::cors: " + std::string(what) + " \"" + name + "\" is not a header name");
    }
    append_item(value, name);
  }
  return value;
}

}  // namespace

cors_policy::cors_policy(const cors_options& options) : credentials(options.credentials) {
  for (const std::string& origin : options.origins) {
    if (const std::string_view e = cors_origin_error(origin); !e.empty()) {
      throw std::invalid_argument("stet::cors: origin \"" + origin + "\": " + std::string(e));
    }
    const std::size_t wildcard = origin.find("://*.");
    if (origin == "*") {
      any_origin = true;
    } else if (wildcard != std::string::npos) {
      patterns.push_back({lower(origin.substr(0, wildcard + 3)), lower(origin.substr(wildcard + 4))});
    } else {
      exact.insert(lower(origin));
    }
  }

  for (const stet::method m : options.methods) {
    if (m == stet::method::other) throw std::invalid_argument("stet::cors: method::other cannot be allowed");
    if ((method_mask & bit(m)) == 0) append_item(allow_methods, to_string(m));
    method_mask |= bit(m);
  }
  allow_headers = header_list(options.allow_headers, "allowed header");
  for (const std::string& name : options.allow_headers) {
    if (name == "*") any_header = true;
    header_names.push_back(lower(name));
  }
  // With credentials "*" is a header name, not a wildcard: the requested names are echoed instead.
  if (any_header && credentials) allow_headers.clear();
  expose_headers = header_list(options.expose_headers, "exposed header");
  if (credentials &&
      std::find(options.expose_headers.begin(), options.expose_headers.end(), "*") != options.expose_headers.end()) {
    throw std::invalid_argument("stet::cors: \"*\" cannot be exposed with credentials: name the headers");
  }
  if (options.max_age) {
    if (options.max_age->count() < 0) throw std::invalid_argument("stet::cors: max_age must not be negative");
    max_age = std::to_string(options.max_age->count());
  }
}

origin_verdict cors_policy::decide(std::string_view origin) const noexcept {
  if (origin.empty()) return origin_verdict::refused;
  if (any_origin && !credentials) return origin_verdict::any;
  if (contains_folded(exact, origin)) return origin_verdict::echo;
  for (const origin_pattern& p : patterns) {
    if (pattern_matches(p, origin)) return origin_verdict::echo;
  }
  // "*" with credentials echoes a well-formed origin (never "null", never a pattern).
  if (any_origin && origin != "null" && origin.find('*') == std::string_view::npos &&
      cors_origin_error(origin).empty()) {
    return origin_verdict::echo;
  }
  return origin_verdict::refused;
}

bool cors_policy::allows_method(std::string_view token) const noexcept {
  const std::optional<stet::method> m = parse_method(token);
  if (!m) return false;
  // The Fetch standard never asks the server about these: they are always allowed.
  if (*m == stet::method::get || *m == stet::method::head || *m == stet::method::post) return true;
  return (method_mask & bit(*m)) != 0;
}

bool cors_policy::allows_headers(std::string_view requested) const noexcept {
  return for_each_item(requested, [this](std::string_view name) {
    if (!is_token(name)) return false;
    if (any_header) return true;
    return std::any_of(header_names.begin(), header_names.end(),
                       [name](const std::string& allowed) { return iequals(allowed, name); });
  });
}

}  // namespace detail

std::string_view cors_origin_error(std::string_view origin) noexcept {
  if (origin == "*" || origin == "null") return {};
  const std::size_t sep = origin.find("://");
  if (sep == std::string_view::npos) return "an origin is scheme://host[:port], e.g. https://example.com";
  const std::string_view scheme = origin.substr(0, sep);
  if (scheme.empty() || !detail::is_alpha(scheme.front()) || !std::all_of(scheme.begin(), scheme.end(), [](char c) {
        return detail::scheme_chars[static_cast<unsigned char>(c)];
      })) {
    return "the scheme must be a letter followed by letters, digits, '+', '-' or '.'";
  }
  const std::string_view authority = origin.substr(sep + 3);
  if (authority.find_first_of("/?#") != std::string_view::npos) {
    return "an origin has no path, query or trailing '/': scheme://host[:port]";
  }
  if (authority.find('@') != std::string_view::npos) return "an origin has no user name or password";
  return detail::authority_error(authority);
}

}  // namespace stet
