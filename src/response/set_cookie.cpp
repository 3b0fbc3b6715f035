// Set-Cookie field values (RFC 6265 section 4.1, SameSite, cookie prefixes):
// what a response sends. Reading the Cookie header is src/request/cookies.cpp.
#include <stet/cookies.hpp>

#include <stet/error.hpp>

#include "http/date_cache.hpp"
#include "http/token.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <chrono>
#include <ctime>

namespace stet {
namespace {

// RFC 6265 4.1.1 cookie-octet: visible ASCII except DQUOTE, ',', ';' and '\'.
constexpr bool is_cookie_octet(char ch) noexcept {
  const auto c = static_cast<unsigned char>(ch);
  return c >= 0x21 && c <= 0x7e && c != '"' && c != ',' && c != ';' && c != '\\';
}

// av-octet of Path: any CHAR except CTLs and ';'.
constexpr bool is_path_value(std::string_view s) noexcept {
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c < 0x20 || c >= 0x7f || c == ';') return false;
  }
  return true;
}

// A host name or IPv4 literal, optionally with the legacy leading dot.
constexpr bool is_domain_value(std::string_view s) noexcept {
  if (!s.empty() && s.front() == '.') s.remove_prefix(1);
  if (s.empty() || s.front() == '-' || s.back() == '-') return false;
  for (char c : s) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '.';
    if (!ok) return false;
  }
  return true;
}

constexpr bool starts_with_icase(std::string_view s, std::string_view prefix) noexcept {
  return s.size() >= prefix.size() && detail::iequals(s.substr(0, prefix.size()), prefix);
}

std::error_code check_cookie(std::string_view name, std::string_view value, const cookie_options& o) noexcept {
  if (!is_cookie_name(name)) return error::invalid_cookie_name;
  if (!is_cookie_value(value)) return error::invalid_cookie_value;
  if (!is_path_value(o.path)) return error::invalid_cookie_attribute;
  if (!o.domain.empty() && !is_domain_value(o.domain)) return error::invalid_cookie_attribute;
  // Browsers silently drop these (RFC 6265bis 4.1.3, 5.6.7): refusing here turns a
  // cookie that never arrives into an error at the call that made it.
  const bool host_prefix = starts_with_icase(name, "__Host-");
  if (!o.secure && (o.same_site == same_site::none || host_prefix || starts_with_icase(name, "__Secure-"))) {
    return error::cookie_needs_secure;
  }
  if (host_prefix && (o.path != "/" || !o.domain.empty())) return error::cookie_needs_secure;
  return {};
}

void append_number(std::string& out, std::int64_t n) {
  std::array<char, 24> digits{};
  const auto [end, ec] = std::to_chars(digits.data(), digits.data() + digits.size(), n);
  out.append(digits.data(), end);
}

// IMF-fixdate can only spell years 0000-9999; clamp rather than emit garbage.
std::time_t clamp_expires(std::chrono::system_clock::time_point t) noexcept {
  constexpr std::int64_t last_second_of_9999 = 253402300799;
  const std::int64_t s = std::chrono::duration_cast<std::chrono::seconds>(t.time_since_epoch()).count();
  return static_cast<std::time_t>(std::clamp<std::int64_t>(s, 0, last_second_of_9999));
}

}  // namespace

bool is_cookie_name(std::string_view name) noexcept { return detail::is_token(name); }

bool is_cookie_value(std::string_view value) noexcept {
  if (value.size() >= 2 && value.front() == '"' && value.back() == '"') value = value.substr(1, value.size() - 2);
  return std::all_of(value.begin(), value.end(), is_cookie_octet);
}

std::error_code append_set_cookie(std::string& out, std::string_view name, std::string_view value,
                                  const cookie_options& options) {
  if (std::error_code ec = check_cookie(name, value, options)) return ec;
  out.append(name).append("=").append(value);
  if (!options.path.empty()) out.append("; Path=").append(options.path);
  if (!options.domain.empty()) out.append("; Domain=").append(options.domain);
  if (options.max_age) {
    out.append("; Max-Age=");
    append_number(out, std::max<std::int64_t>(options.max_age->count(), 0));
  }
  if (options.expires) {
    std::array<char, 29> date{};
    out.append("; Expires=").append(detail::format_http_date(clamp_expires(*options.expires), date));
  }
  if (options.secure) out.append("; Secure");
  if (options.http_only) out.append("; HttpOnly");
  switch (options.same_site) {
    case same_site::unset: break;
    case same_site::lax: out.append("; SameSite=Lax"); break;
    case same_site::strict: out.append("; SameSite=Strict"); break;
    case same_site::none: out.append("; SameSite=None"); break;
  }
  return {};
}

}  // namespace stet
