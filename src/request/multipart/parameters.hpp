#pragma once
// The `; name=value` parameters after a media type (Content-Type) or a
// disposition type (Content-Disposition), RFC 9110 5.6.6: values are tokens or
// quoted-strings. Shared by the boundary and the part-header parsers.

#include "http/token.hpp"

#include <cstddef>
#include <span>
#include <string_view>

namespace stet::detail {

/// One parameter: `name` is a token; `value` is the raw text between the quotes
/// when `quoted` (escapes still in it), else the trimmed text up to the next ';'.
struct parameter {
  std::string_view name;
  std::string_view value;
  bool quoted = false;
};

enum class parameter_status : unsigned char { ok, end, malformed };

struct parameter_step {
  parameter param;
  parameter_status status = parameter_status::end;
};

/// The first ';'-separated item of a header value (the type), trimmed, and the rest.
struct type_and_parameters {
  std::string_view type;
  std::string_view parameters;
};

constexpr type_and_parameters split_type(std::string_view value) noexcept {
  const std::size_t semi = value.find(';');
  if (semi == std::string_view::npos) return {trim_ows(value), {}};
  return {trim_ows(value.substr(0, semi)), value.substr(semi)};
}

/// Reads parameters one at a time. Empty items (";;") are skipped; OWS is
/// allowed around ';' and '='. Malformed: a name that is not a token, no '=',
/// an unterminated quoted-string, or bytes after its closing quote.
class parameter_reader {
 public:
  explicit constexpr parameter_reader(std::string_view text) noexcept : rest_(text) {}

  constexpr parameter_step next() noexcept {
    for (;;) {
      rest_ = trim_ows(rest_);
      if (rest_.empty()) return {};
      if (rest_.front() != ';') return malformed();
      rest_ = trim_ows(rest_.substr(1));
      if (rest_.empty()) return {};
      if (rest_.front() != ';') break;
    }
    const std::size_t eq = rest_.find('=');
    if (eq == std::string_view::npos) return malformed();
    parameter p;
    p.name = trim_ows(rest_.substr(0, eq));
    if (!is_token(p.name)) return malformed();
    rest_ = trim_ows(rest_.substr(eq + 1));
    if (!rest_.empty() && rest_.front() == '"') return quoted(p);
    const std::size_t semi = rest_.find(';');
    p.value = trim_ows(rest_.substr(0, semi));
    rest_ = semi == std::string_view::npos ? std::string_view() : rest_.substr(semi);
    return {p, parameter_status::ok};
  }

 private:
  constexpr parameter_step malformed() noexcept {
    rest_ = {};
    return {{}, parameter_status::malformed};
  }

  constexpr parameter_step quoted(parameter p) noexcept {
    for (std::size_t i = 1; i < rest_.size(); ++i) {
      if (rest_[i] == '\\' && i + 1 < rest_.size() && (rest_[i + 1] == '"' || rest_[i + 1] == '\\')) {
        ++i;
      } else if (rest_[i] == '"') {
        p.value = rest_.substr(1, i - 1);
        p.quoted = true;
        rest_ = trim_ows(rest_.substr(i + 1));
        if (!rest_.empty() && rest_.front() != ';') return malformed();
        return {p, parameter_status::ok};
      }
    }
    return malformed();
  }

  std::string_view rest_;
};

/// Removes the escapes of a quoted-string value in place: `\"` and `\\` become
/// `"` and `\`; any other backslash stays (old browsers send unescaped Windows
/// paths). Returns the new length.
constexpr std::size_t unescape_quoted(std::span<char> value) noexcept {
  std::size_t out = 0;
  for (std::size_t i = 0; i < value.size(); ++i) {
    if (value[i] == '\\' && i + 1 < value.size() && (value[i + 1] == '"' || value[i + 1] == '\\')) ++i;
    value[out++] = value[i];
  }
  return out;
}

}  // namespace stet::detail
