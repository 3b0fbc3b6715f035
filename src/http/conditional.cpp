#include "http/conditional.hpp"

#include <charconv>

#include "http/token.hpp"

#include <limits>

namespace stet::detail {
namespace {

bool is_digit(char c) noexcept { return c >= '0' && c <= '9'; }

// One entity-tag at the front of `s` ("..." or W/"..."), quotes included in
// `tag`; consumes it. False when `s` does not start with one.
bool take_etag(std::string_view& s, std::string_view& tag, bool& weak) noexcept {
  weak = s.starts_with("W/");
  const std::size_t open = weak ? 2 : 0;
  if (s.size() <= open || s[open] != '"') return false;
  const std::size_t close = s.find('"', open + 1);
  if (close == std::string_view::npos) return false;
  tag = s.substr(open, close - open + 1);
  s.remove_prefix(close + 1);
  return true;
}

std::string_view skip_list_separators(std::string_view s) noexcept {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == ',')) s.remove_prefix(1);
  return s;
}

// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) noexcept {
  y -= m <= 2 ? 1 : 0;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

// Reads exactly `n` digits.
bool take_number(std::string_view& s, std::size_t n, int& out) noexcept {
  if (s.size() < n) return false;
  out = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (!is_digit(s[i])) return false;
    out = out * 10 + (s[i] - '0');
  }
  s.remove_prefix(n);
  return true;
}

bool take_literal(std::string_view& s, std::string_view literal) noexcept {
  if (!s.starts_with(literal)) return false;
  s.remove_prefix(literal.size());
  return true;
}

bool take_month(std::string_view& s, int& month) noexcept {
  constexpr std::string_view names = "JanFebMarAprMayJunJulAugSepOctNovDec";
  if (s.size() < 3) return false;
  const std::size_t at = names.find(s.substr(0, 3));
  if (at == std::string_view::npos || at % 3 != 0) return false;
  month = static_cast<int>(at / 3) + 1;
  s.remove_prefix(3);
  return true;
}

bool take_time(std::string_view& s, int& h, int& m, int& sec) noexcept {
  return take_number(s, 2, h) && take_literal(s, ":") && take_number(s, 2, m) && take_literal(s, ":") &&
         take_number(s, 2, sec);
}

std::optional<std::time_t> to_time(int year, int month, int day, int h, int m, int s) noexcept {
  if (month < 1 || month > 12 || day < 1 || day > 31 || h > 23 || m > 59 || s > 60) return std::nullopt;
  const std::int64_t days = days_from_civil(year, static_cast<unsigned>(month), static_cast<unsigned>(day));
  return static_cast<std::time_t>(days * 86400 + h * 3600 + m * 60 + s);
}

// "Sun, 06 Nov 1994 08:49:37 GMT"
std::optional<std::time_t> parse_imf_fixdate(std::string_view s) noexcept {
  int day = 0, month = 0, year = 0, h = 0, m = 0, sec = 0;
  if (s.size() != 29 || s[3] != ',') return std::nullopt;
  s.remove_prefix(4);
  if (take_literal(s, " ") && take_number(s, 2, day) && take_literal(s, " ") && take_month(s, month) &&
      take_literal(s, " ") && take_number(s, 4, year) && take_literal(s, " ") && take_time(s, h, m, sec) &&
      s == " GMT") {
    return to_time(year, month, day, h, m, sec);
  }
  return std::nullopt;
}

// "Sunday, 06-Nov-94 08:49:37 GMT"; two-digit years per RFC 9110's 50-year rule
// (applied to the 21st century: 00-69 -> 20xx).
std::optional<std::time_t> parse_rfc850(std::string_view s) noexcept {
  const std::size_t comma = s.find(", ");
  if (comma == std::string_view::npos || comma < 6) return std::nullopt;
  s.remove_prefix(comma + 2);
  int day = 0, month = 0, year = 0, h = 0, m = 0, sec = 0;
  if (take_number(s, 2, day) && take_literal(s, "-") && take_month(s, month) && take_literal(s, "-") &&
      take_number(s, 2, year) && take_literal(s, " ") && take_time(s, h, m, sec) && s == " GMT") {
    return to_time(year < 70 ? 2000 + year : 1900 + year, month, day, h, m, sec);
  }
  return std::nullopt;
}

// "Sun Nov  6 08:49:37 1994"
std::optional<std::time_t> parse_asctime(std::string_view s) noexcept {
  if (s.size() != 24 || s[3] != ' ') return std::nullopt;
  s.remove_prefix(4);
  int day = 0, month = 0, year = 0, h = 0, m = 0, sec = 0;
  if (!take_month(s, month) || !take_literal(s, " ")) return std::nullopt;
  if (!s.empty() && s.front() == ' ') {
    s.remove_prefix(1);
    if (!take_number(s, 1, day)) return std::nullopt;
  } else if (!take_number(s, 2, day)) {
    return std::nullopt;
  }
  if (take_literal(s, " ") && take_time(s, h, m, sec) && take_literal(s, " ") && take_number(s, 4, year) && s.empty()) {
    return to_time(year, month, day, h, m, sec);
  }
  return std::nullopt;
}

// Digits to a number, saturating; nullopt when `s` is empty or not all digits.
std::optional<std::uint64_t> parse_u64(std::string_view s) noexcept {
  if (s.empty()) return std::nullopt;
  std::uint64_t v = 0;
  for (char c : s) {
    if (!is_digit(c)) return std::nullopt;
    const auto digit = static_cast<std::uint64_t>(c - '0');
    v = v > (std::numeric_limits<std::uint64_t>::max() - digit) / 10 ? std::numeric_limits<std::uint64_t>::max()
                                                                     : v * 10 + digit;
  }
  return v;
}

decision whole(const representation_facts& facts) noexcept { return {outcome::full, 0, facts.size}; }

}  // namespace

bool etag_list_matches(std::string_view list, std::string_view etag, bool weak) noexcept {
  list = trim_ows(list);
  if (list == "*") return true;
  std::string_view own = etag;
  const bool own_weak = own.starts_with("W/");
  if (own_weak) own.remove_prefix(2);
  if (own_weak && !weak) return false;
  for (list = skip_list_separators(list); !list.empty(); list = skip_list_separators(list)) {
    std::string_view tag;
    bool tag_weak = false;
    if (!take_etag(list, tag, tag_weak)) return false;  // malformed: no later member is trusted
    if (tag == own && (weak || !tag_weak)) return true;
  }
  return false;
}

std::optional<std::time_t> parse_http_date(std::string_view text) noexcept {
  text = trim_ows(text);
  if (auto t = parse_imf_fixdate(text)) return t;
  if (auto t = parse_rfc850(text)) return t;
  return parse_asctime(text);
}

byte_range parse_range(std::string_view value, std::uint64_t size) noexcept {
  value = trim_ows(value);
  if (value.size() < 6 || !iequals(value.substr(0, 6), "bytes=")) return {};
  value = trim_ows(value.substr(6));
  // A list may carry empty elements ("0-1,"); only a second real range makes it multi.
  const std::size_t comma = value.find(',');
  if (comma != std::string_view::npos) {
    if (!skip_list_separators(value.substr(comma)).empty()) return {};
    value = trim_ows(value.substr(0, comma));
  }
  const std::size_t dash = value.find('-');
  if (dash == std::string_view::npos) return {};
  const std::string_view first_text = value.substr(0, dash);
  const std::string_view last_text = value.substr(dash + 1);
  if (first_text.empty()) {  // suffix: the last n bytes
    const auto n = parse_u64(last_text);
    if (!n) return {};
    if (*n == 0 || size == 0) return {range_kind::unsatisfiable, 0, 0};
    const std::uint64_t length = *n < size ? *n : size;
    return {range_kind::satisfiable, size - length, length};
  }
  const auto first = parse_u64(first_text);
  if (!first) return {};
  std::uint64_t last = size == 0 ? 0 : size - 1;
  if (!last_text.empty()) {
    const auto given = parse_u64(last_text);
    if (!given || *given < *first) return {};
    if (*given < last) last = *given;
  }
  if (*first >= size) return {range_kind::unsatisfiable, 0, 0};
  return {range_kind::satisfiable, *first, last - *first + 1};
}

bool if_range_holds(std::string_view value, const representation_facts& facts) noexcept {
  value = trim_ows(value);
  if (value.starts_with('"') || value.starts_with("W/")) {
    std::string_view tag;
    bool weak = false;
    return take_etag(value, tag, weak) && value.empty() && !weak && tag == facts.etag;
  }
  const auto date = parse_http_date(value);
  return date && facts.last_modified && *date == *facts.last_modified;
}

decision evaluate(const request_conditions& c, const representation_facts& facts) noexcept {
  if (c.if_match) {
    if (!etag_list_matches(*c.if_match, facts.etag, false)) return {outcome::precondition_failed, 0, 0};
  } else if (c.if_unmodified_since && facts.last_modified) {
    const auto date = parse_http_date(*c.if_unmodified_since);
    if (date && *facts.last_modified > *date) return {outcome::precondition_failed, 0, 0};
  }
  if (c.if_none_match) {
    // GET and HEAD are the only methods that reach here, so a match is a 304.
    if (etag_list_matches(*c.if_none_match, facts.etag, true)) return {outcome::not_modified, 0, 0};
  } else if (c.if_modified_since && facts.last_modified) {
    const auto date = parse_http_date(*c.if_modified_since);
    if (date && *facts.last_modified <= *date) return {outcome::not_modified, 0, 0};
  }
  if (!c.range || c.head) return whole(facts);
  if (c.if_range && !if_range_holds(*c.if_range, facts)) return whole(facts);
  const byte_range r = parse_range(*c.range, facts.size);
  switch (r.kind) {
    case range_kind::satisfiable: return {outcome::partial, r.offset, r.length};
    case range_kind::unsatisfiable: return {outcome::range_not_satisfiable, 0, 0};
    case range_kind::ignored: break;
  }
  return whole(facts);
}

std::string_view content_range(const decision& d, std::uint64_t size, std::array<char, 72>& out) noexcept {
  char* p = out.data();
  char* const end = out.data() + out.size();
  p += std::string_view("bytes ").copy(p, 6);
  if (d.kind == outcome::partial) {
    p = std::to_chars(p, end, d.offset).ptr;
    *p++ = '-';
    p = std::to_chars(p, end, d.offset + d.length - 1).ptr;
  } else {
    *p++ = '*';
  }
  *p++ = '/';
  p = std::to_chars(p, end, size).ptr;
  return {out.data(), static_cast<std::size_t>(p - out.data())};
}

}  // namespace stet::detail
