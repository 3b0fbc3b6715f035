#pragma once
/// @file
/// stet::header_map: case-insensitive multimap view of a request's header fields.

#include <stet/detail/sorted_fields.hpp>

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

/// The header fields of one request indexed by lowercase name: get(),
/// get_all(), contains(), size(), empty() and sorted() (see
/// detail::sorted_fields) compare names ASCII case-insensitively and return
/// the stored names lowercase; repeated names keep every value in arrival
/// order. sorted() is by name; for arrival order use request::header_fields().
/// Built by request::headers() (memoised) or index_headers().
/// @note A view: names point into the request's buffer or into a per-thread
/// name cache, values into the request's buffer, the index into the request
/// arena. Valid while the request is (until the handler returns).
class header_map : public detail::sorted_fields<header_field, detail::name_case::ascii_insensitive> {
 public:
  /// An empty map.
  header_map() noexcept = default;

 private:
  friend header_map index_headers(std::span<const header_field> fields, std::pmr::memory_resource& arena);
  explicit header_map(std::span<const header_field> sorted) noexcept : sorted_fields(sorted) {}
};

extern template class detail::sorted_fields<header_field, detail::name_case::ascii_insensitive>;

/// Builds a header_map of `fields` (uncached; request::headers() is the memoised
/// form). The index lives in `arena`; lowercase names are `fields`' own names
/// when already lowercase, else copies in a bounded per-thread cache (or in
/// `arena` when that cache is full).
/// @throws std::bad_alloc when `arena` cannot allocate.
header_map index_headers(std::span<const header_field> fields, std::pmr::memory_resource& arena);

}  // namespace stet
