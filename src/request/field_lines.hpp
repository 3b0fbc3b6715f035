#pragma once
// RFC 9110 5.3: a list-valued field sent as several field lines is one list,
// the lines' values joined with commas in arrival order. stet's readers of
// list-valued fields (Accept, Accept-Encoding, If-Match, If-None-Match,
// Access-Control-Request-Headers) take the combined value from here, so a
// second line is never ignored; request::header() stays "the first line".

#include <stet/headers.hpp>

#include <memory_resource>
#include <optional>
#include <span>
#include <string_view>

namespace stet {
class request;
}

namespace stet::detail {

/// Every line of `name` (ASCII case-insensitive) among `fields`, joined by ", "
/// into `arena`. For a caller whose own pass over the fields saw `name` more
/// than once; a single line needs no copy.
/// @throws std::bad_alloc when `arena` cannot allocate.
std::string_view join_field_lines(std::span<const header_field> fields, std::string_view name,
                                  std::pmr::memory_resource& arena);

/// The combined value of the field `name`: nullopt when absent, the line's own
/// value (a view, nothing copied) when sent once, else join_field_lines().
/// @throws std::bad_alloc when `arena` cannot allocate (several lines only).
std::optional<std::string_view> combined_field(std::span<const header_field> fields, std::string_view name,
                                               std::pmr::memory_resource& arena);

/// combined_field() over a request's fields, joined into its arena.
std::optional<std::string_view> combined_field(const request& req, std::string_view name);

}  // namespace stet::detail
