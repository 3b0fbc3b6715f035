#pragma once
// Internal: not part of stet's API. include/stet/detail/ holds only what the
// public templates need to see (CONTRIBUTING.md, "Where a change goes").
// The route pattern grammar as constexpr functions, so that one parser serves
// both router::add() at run time and the "_route" literal at compile time.

#include <stet/route_params.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace stet::detail {

/// What one pattern segment matches. Parameter classes are listed in the order
/// the router tries them at one position (most specific first).
enum class segment_kind : std::uint8_t { literal, int64, uint64, alpha, alnum, text, rest };

/// The most segments a pattern may have; add() refuses deeper patterns.
inline constexpr std::size_t max_pattern_segments = 32;

/// One segment of a pattern: a literal (text as written, escapes intact) or a
/// parameter (text is its name).
struct pattern_segment {
  segment_kind kind = segment_kind::literal;
  std::string_view text;
};

/// What scanning a whole pattern found. `error` is null when the pattern is
/// valid; otherwise it says what is wrong and `where` shows the offending part.
struct pattern_shape {
  const char* error = nullptr;
  std::string_view where;
  std::size_t segments = 0;
  std::size_t params = 0;
  std::array<segment_kind, max_route_params> kinds{};  ///< the parameters' kinds, in order
};

constexpr bool is_name_start(char c) noexcept { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
constexpr bool is_name_char(char c) noexcept { return is_name_start(c) || (c >= '0' && c <= '9'); }
constexpr bool is_hex_digit(char c) noexcept {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

// string_view::find compares a pointer with null, which GCC 12 refuses to
// evaluate at compile time under -fsanitize=undefined; an index loop is fine.
constexpr std::size_t find_char(std::string_view s, char c) noexcept {
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == c) return i;
  }
  return std::string_view::npos;
}

constexpr const char* check_literal(std::string_view seg) noexcept {
  for (std::size_t i = 0; i < seg.size(); ++i) {
    const char c = seg[i];
    if (c == '{' || c == '}') return "a parameter must be a whole segment, as in /{name}/";
    if (c == '?' || c == '#') return "'?' and '#' cannot appear in a path pattern";
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return "control character in a pattern";
    if (c == '%') {
      if (i + 2 >= seg.size() || !is_hex_digit(seg[i + 1]) || !is_hex_digit(seg[i + 2])) {
        return "malformed percent-escape in a literal segment";
      }
      if (seg[i + 1] == '0' && seg[i + 2] == '0') return "%00 cannot appear in a path";
    }
  }
  return nullptr;
}

constexpr const char* parameter_class(std::string_view cls, segment_kind& kind) noexcept {
  if (cls.empty()) {
    kind = segment_kind::text;
  } else if (cls == "int") {
    kind = segment_kind::int64;
  } else if (cls == "uint") {
    kind = segment_kind::uint64;
  } else if (cls == "alpha") {
    kind = segment_kind::alpha;
  } else if (cls == "alnum") {
    kind = segment_kind::alnum;
  } else {
    return "unknown parameter class (known: int, uint, alpha, alnum)";
  }
  return nullptr;
}

/// Parses one segment (the text between two slashes) into `out`; returns an
/// error text, or null.
constexpr const char* parse_segment(std::string_view seg, pattern_segment& out) noexcept {
  if (seg.empty() || seg.front() != '{') {
    out = {segment_kind::literal, seg};
    return check_literal(seg);
  }
  if (seg.back() != '}') return "a parameter must be a whole segment, as in /{name}/";
  std::string_view inner = seg.substr(1, seg.size() - 2);
  const bool catch_all = !inner.empty() && inner.back() == '*';
  if (catch_all) inner.remove_suffix(1);
  if (find_char(inner, '*') != std::string_view::npos) return "a catch-all is written {name*} and takes no class";
  const std::size_t colon = find_char(inner, ':');
  const std::string_view name = inner.substr(0, colon);
  if (name.empty() || !is_name_start(name.front())) return "a parameter name must match [A-Za-z_][A-Za-z0-9_]*";
  for (const char c : name) {
    if (!is_name_char(c)) return "a parameter name must match [A-Za-z_][A-Za-z0-9_]*";
  }
  if (catch_all) {
    if (colon != std::string_view::npos) return "a catch-all is written {name*} and takes no class";
    out = {segment_kind::rest, name};
    return nullptr;
  }
  segment_kind kind{};
  const char* error =
      parameter_class(colon == std::string_view::npos ? std::string_view() : inner.substr(colon + 1), kind);
  out = {kind, name};
  return error;
}

/// Calls `visit(const pattern_segment&)` for each segment of `pattern` ("/" has
/// none; "/a/" has "a" and an empty literal). Stops at the first error, which it
/// returns along with the offending text in `where`.
template <class Visit>
constexpr const char* for_each_segment(std::string_view pattern, std::string_view& where, Visit&& visit) {
  where = pattern;
  if (pattern.empty() || pattern.front() != '/') return "a pattern starts with '/'";
  if (pattern.size() == 1) return nullptr;
  std::string_view rest = pattern.substr(1);
  while (true) {
    const std::size_t slash = find_char(rest, '/');
    const std::string_view seg = rest.substr(0, slash);
    const bool last = slash == std::string_view::npos;
    where = seg;
    if (seg.empty() && !last) return "empty segment ('//') in a pattern";
    pattern_segment parsed;
    if (const char* error = parse_segment(seg, parsed)) return error;
    if (const char* error = visit(parsed, last)) return error;
    if (last) return nullptr;
    rest = rest.substr(slash + 1);
  }
}

/// Validates `pattern` and records its parameter kinds. Everything add() refuses
/// about a pattern on its own is refused here (conflicts with other routes are
/// found by the router).
constexpr pattern_shape scan_pattern(std::string_view pattern) noexcept {
  pattern_shape shape;
  std::array<std::string_view, max_route_params> names{};
  shape.error = for_each_segment(pattern, shape.where, [&](const pattern_segment& seg, bool last) -> const char* {
    if (++shape.segments > max_pattern_segments) return "too many segments in a pattern (at most 32)";
    if (seg.kind == segment_kind::literal) return nullptr;
    if (seg.kind == segment_kind::rest && !last) return "a catch-all {name*} must be the last segment";
    if (shape.params == max_route_params) return "too many parameters in a pattern (at most 16)";
    for (std::size_t i = 0; i < shape.params; ++i) {
      if (names[i] == seg.text) return "a parameter name is used twice";
    }
    names[shape.params] = seg.text;
    shape.kinds[shape.params++] = seg.kind;
    return nullptr;
  });
  return shape;
}

}  // namespace stet::detail
