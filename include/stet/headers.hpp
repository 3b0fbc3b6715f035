#pragma once
/// @file
/// stet::header_map: case-insensitive multimap view of a request's header fields.

#include <cstddef>
#include <memory_resource>
#include <optional>
#include <span>
#include <string_view>

namespace stet {

/// One header field as received: views into the connection's read buffer.
struct header_field {
  std::string_view name;   ///< as sent (or lowercase, in a header_map)
  std::string_view value;  ///< without leading and trailing whitespace
};

/// The header fields of one request indexed by lowercase name: lookups are a
/// binary search, repeated names keep every value in arrival order. Built by
/// request::headers() (memoised) or index_headers().
/// @note A view: names point into the request's buffer or into a per-thread
/// name cache, values into the request's buffer, the index into the request
/// arena. Valid while the request is (until the handler returns).
class header_map {
 public:
  /// An empty map.
  header_map() noexcept = default;

  /// The first value of `name` (ASCII case-insensitive); nullopt when absent.
  std::optional<std::string_view> get(std::string_view name) const noexcept;
  /// Every field named `name`, in arrival order (names lowercase); empty when absent.
  std::span<const header_field> get_all(std::string_view name) const noexcept;
  /// Whether a field named `name` was sent.
  bool contains(std::string_view name) const noexcept { return !get_all(name).empty(); }
  /// Number of fields, repeats included.
  std::size_t size() const noexcept { return sorted_.size(); }
  /// Whether the request has no header field.
  bool empty() const noexcept { return sorted_.empty(); }
  /// Every field with its lowercase name, sorted by name; equal names are
  /// adjacent and in arrival order. For arrival order use request::header_fields().
  std::span<const header_field> sorted() const noexcept { return sorted_; }

 private:
  friend header_map index_headers(std::span<const header_field> fields, std::pmr::memory_resource& arena);
  explicit header_map(std::span<const header_field> sorted) noexcept : sorted_(sorted) {}

  std::span<const header_field> sorted_;
};

/// Builds a header_map of `fields` (uncached; request::headers() is the memoised
/// form). The index lives in `arena`; lowercase names are `fields`' own names
/// when already lowercase, else copies in a bounded per-thread cache (or in
/// `arena` when that cache is full).
/// @throws std::bad_alloc when `arena` cannot allocate.
header_map index_headers(std::span<const header_field> fields, std::pmr::memory_resource& arena);

}  // namespace stet
