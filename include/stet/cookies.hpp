#pragma once
/// @file
/// Cookies in (RFC 6265 Cookie header parsing) and out (Set-Cookie building).

#include <stet/detail/sorted_fields.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory_resource>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <system_error>

namespace stet {

namespace detail {
struct cookie_access;
}

/// One cookie from a Cookie header. `value` has surrounding double quotes removed.
struct cookie {
  std::string_view name;   ///< as sent (case-sensitive)
  std::string_view value;  ///< as sent, surrounding double quotes removed
};

/// The cookies of one request: get(), get_all(), contains(), size(), empty()
/// and sorted() (see detail::sorted_fields) by exact (case-sensitive) name; a
/// name sent twice keeps both values, first sent first (RFC 6265 5.4: the
/// cookie with the longer path comes first). Built by request::cookies()
/// (memoised, and cached per thread across requests) or parse_cookie_header().
/// @note A view: names and values point into the request's Cookie header, the
/// lists into the request arena. Valid while the request is.
class cookie_jar : public detail::sorted_fields<cookie, detail::name_case::exact> {
 public:
  /// No cookies.
  cookie_jar() noexcept = default;

  /// Every cookie in the order sent.
  std::span<const cookie> all() const noexcept { return all_; }

 private:
  friend struct detail::cookie_access;
  cookie_jar(std::span<const cookie> all, std::span<const cookie> sorted) noexcept : sorted_fields(sorted), all_(all) {}

  std::span<const cookie> all_;
};

extern template class detail::sorted_fields<cookie, detail::name_case::exact>;

/// Parses one Cookie header value (RFC 6265 section 4.2.1, leniently as in 5.4):
/// pairs split on ';', optional whitespace around names and values ignored,
/// a value in double quotes has them removed. A pair without '=', with a name
/// that is not a token, or with a value holding a control byte (NUL included),
/// a DQUOTE other than the surrounding pair, ';' or '\\' is skipped; bytes
/// 0x80-0xFF are kept as sent (not checked as UTF-8). Never throws on content.
/// Uncached: request::cookies() is the memoised form.
/// @return Views into `header`; the lists live in `arena`.
/// @throws std::bad_alloc when `arena` cannot allocate.
cookie_jar parse_cookie_header(std::string_view header, std::pmr::memory_resource& arena);

/// SameSite attribute of a Set-Cookie.
enum class same_site : std::uint8_t {
  unset,   ///< no attribute (browsers default to Lax)
  lax,     ///< SameSite=Lax
  strict,  ///< SameSite=Strict
  none,    ///< SameSite=None (requires secure)
};

/// Attributes of a Set-Cookie (RFC 6265 section 4.1 plus SameSite). The
/// defaults are what a session cookie on an HTTPS-less development server needs;
/// set `secure` in production.
struct cookie_options {
  std::string_view path = "/";                                     ///< Path; empty omits it
  std::string_view domain{};                                       ///< Domain; empty omits it (host-only cookie)
  std::optional<std::chrono::seconds> max_age{};                   ///< Max-Age; values <= 0 are sent as 0 (delete now)
  std::optional<std::chrono::system_clock::time_point> expires{};  ///< Expires, as an IMF-fixdate
  bool secure = false;                                             ///< Secure
  bool http_only = true;                                           ///< HttpOnly
  stet::same_site same_site = stet::same_site::lax;                ///< SameSite
};

/// Whether `name` may be a cookie name (an RFC 9110 token).
bool is_cookie_name(std::string_view name) noexcept;
/// Whether `value` may be sent as a cookie value: RFC 6265 cookie-octets, or
/// cookie-octets inside one pair of double quotes.
bool is_cookie_value(std::string_view value) noexcept;

/// Appends a Set-Cookie field value ("name=value; Path=/; ...", no field name,
/// no CRLF) to `out`. Refuses, leaving `out` untouched: a bad name
/// (error::invalid_cookie_name), a bad value (error::invalid_cookie_value), a
/// Path or Domain with a control byte or ';' or a Domain that is not a host name
/// (error::invalid_cookie_attribute), and cookies browsers would drop for lack
/// of Secure: SameSite=None, the __Secure- prefix, and the __Host- prefix (which
/// also needs Path=/ and no Domain) (error::cookie_needs_secure).
/// @throws std::bad_alloc when `out` cannot grow.
std::error_code append_set_cookie(std::string& out, std::string_view name, std::string_view value,
                                  const cookie_options& options = {});

}  // namespace stet
