#pragma once
// Internal: not part of stet's API. include/stet/detail/ holds only what the
// public templates need to see (CONTRIBUTING.md, "Where a change goes").
// The lookups that header_map, cookie_jar and form_data share: a name-sorted
// span of {name, value} fields, where "first value" and "every value" of a name
// are one search for the run of equal names. get() and get_all() are compiled
// into the library once per field type (src/request/sorted_fields.cpp).

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace stet::detail {

/// How sorted_fields compares a looked-up name with the stored ones.
enum class name_case : std::uint8_t {
  exact,              ///< byte for byte (cookies, form fields)
  ascii_insensitive,  ///< stored names are lowercase; the key is folded (header fields)
};

/// A view of `Field`s (each with `name` and `value` string_views) sorted by
/// name, equal names adjacent in arrival order. Owns nothing. The public base
/// of header_map, cookie_jar and form_data, whose docs say how their names
/// compare and how long their views live.
template <class Field, name_case Case>
class sorted_fields {
 public:
  /// The value of the first field named `name`; nullopt when absent.
  std::optional<std::string_view> get(std::string_view name) const noexcept;
  /// Every field named `name`, in arrival order; empty when absent.
  std::span<const Field> get_all(std::string_view name) const noexcept;
  /// Whether a field named `name` is present.
  bool contains(std::string_view name) const noexcept { return !get_all(name).empty(); }
  /// Number of fields, repeated names included.
  std::size_t size() const noexcept { return sorted_.size(); }
  /// Whether there is no field.
  bool empty() const noexcept { return sorted_.empty(); }
  /// Every field, sorted by name.
  std::span<const Field> sorted() const noexcept { return sorted_; }

 protected:
  sorted_fields() noexcept = default;
  /// `sorted` must be sorted by name (lowercase names for ascii_insensitive).
  explicit sorted_fields(std::span<const Field> sorted) noexcept : sorted_(sorted) {}

 private:
  std::span<const Field> sorted_;
};

}  // namespace stet::detail
