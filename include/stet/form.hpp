#pragma once
/// @file
/// application/x-www-form-urlencoded: query strings and form bodies.

#include <stet/detail/sorted_fields.hpp>
#include <stet/status.hpp>

#include <cstddef>
#include <memory_resource>
#include <optional>
#include <span>
#include <string_view>
#include <system_error>

namespace stet {

namespace detail {
struct form_access;
}

/// One decoded name=value pair.
struct form_field {
  std::string_view name;   ///< decoded
  std::string_view value;  ///< decoded; empty for a name without '='
};

/// Decoded urlencoded fields: get(), get_all(), contains(), size(), empty()
/// and sorted() (see detail::sorted_fields) by exact (case-sensitive) name; a
/// name given several times keeps every value in order (walk sorted() to group
/// repeated keys, e.g. into JSON arrays). Built by request::query() and
/// request::form() (memoised) or parse_urlencoded().
/// @note A view: a name or value without escapes points into the parsed text
/// (the request's buffer), a decoded one into the request arena, as do the
/// lists. Valid while the request is.
class form_data : public detail::sorted_fields<form_field, detail::name_case::exact> {
 public:
  /// No fields.
  form_data() noexcept = default;

  /// Every field in the order given.
  std::span<const form_field> all() const noexcept { return all_; }

 private:
  friend struct detail::form_access;
  form_data(std::span<const form_field> all, std::span<const form_field> sorted) noexcept
      : sorted_fields(sorted), all_(all) {}

  std::span<const form_field> all_;
};

extern template class detail::sorted_fields<form_field, detail::name_case::exact>;

/// Decodes `text` as the WHATWG URL standard's urlencoded parser does: fields
/// split on '&' (empty ones skipped), name and value split on the first '='
/// (a field without '=' has an empty value), '+' is a space, %XX is the byte
/// XX. A '%' not followed by two hex digits is kept literally ("100%" and
/// "%zz" stay as written): malformed escapes are never an error. Decoded bytes
/// are not checked as UTF-8 and may include NUL. Never throws on content.
/// Uncached: request::query() and request::form() are the memoised forms.
/// @throws std::bad_alloc when `arena` cannot allocate.
form_data parse_urlencoded(std::string_view text, std::pmr::memory_resource& arena);

/// How many fields parse_urlencoded() would return, without decoding.
std::size_t count_urlencoded_fields(std::string_view text) noexcept;

/// The most fields request::form() accepts (error::too_many_form_fields, 413, beyond).
inline constexpr std::size_t default_form_max_fields = 1000;

/// What request::form() found: the fields, or why the body is not a form.
class form_result {
 public:
  /// A result holding `fields`.
  explicit form_result(form_data fields) noexcept : fields_(fields) {}
  /// A failed result; `ec` is a stet::error.
  explicit form_result(std::error_code ec) noexcept : error_(ec) {}

  /// True when the fields were decoded.
  explicit operator bool() const noexcept { return !error_; }
  /// The fields; empty on error.
  const form_data& value() const noexcept { return fields_; }
  /// value().
  const form_data& operator*() const noexcept { return fields_; }
  /// &value().
  const form_data* operator->() const noexcept { return &fields_; }
  /// error::unsupported_media_type (Content-Type is not urlencoded) or
  /// error::too_many_form_fields; empty on success.
  std::error_code error() const noexcept { return error_; }
  /// The status to answer the error with (415 or 413); 200 on success.
  stet::status status() const noexcept;

 private:
  form_data fields_;
  std::error_code error_;
};

}  // namespace stet
