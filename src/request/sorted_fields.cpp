// The lookups of header_map, cookie_jar and form_data, instantiated here once
// for each: the search (field_index.hpp) stays out of the public headers.
#include <stet/detail/sorted_fields.hpp>

#include <stet/cookies.hpp>
#include <stet/form.hpp>
#include <stet/headers.hpp>

#include "request/field_index.hpp"

namespace stet::detail {

template <class Field, name_case Case>
std::span<const Field> sorted_fields<Field, Case>::get_all(std::string_view name) const noexcept {
  if constexpr (Case == name_case::ascii_insensitive) {
    return equal_run(sorted_, name, compare_folded{});
  } else {
    return equal_run(sorted_, name, compare_exact{});
  }
}

template <class Field, name_case Case>
std::optional<std::string_view> sorted_fields<Field, Case>::get(std::string_view name) const noexcept {
  const std::span<const Field> run = get_all(name);
  if (run.empty()) return std::nullopt;
  return run.front().value;
}

template class sorted_fields<header_field, name_case::ascii_insensitive>;
template class sorted_fields<cookie, name_case::exact>;
template class sorted_fields<form_field, name_case::exact>;

}  // namespace stet::detail
