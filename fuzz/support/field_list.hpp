#pragma once
// Properties shared by cookie_jar and form_data: both keep their fields in
// arrival order and as a stable sort by name, and answer lookups from the sort.

#include "support/require.hpp"

#include <algorithm>
#include <cstddef>
#include <string_view>
#include <vector>

namespace stet::fuzz {

/// Checks that `list.sorted()` is `list.all()` stably sorted by name, and that
/// get()/get_all() agree with a scan of `all()` for every name present.
template <class List>
void check_field_list(const List& list, std::string_view input) {
  const auto all = list.all();
  const auto sorted = list.sorted();
  require(all.size() == sorted.size(), "sorted() holds every field", input);
  require(list.size() == all.size() && list.empty() == all.empty(), "size() counts all()", input);
  using field = typename decltype(all)::value_type;
  // Kept between inputs: its storage is reused rather than taken fresh from
  // ASan's allocator (which zero-fills and page-faults a new block each time).
  thread_local std::vector<field> expected;
  expected.assign(all.begin(), all.end());
  std::stable_sort(expected.begin(), expected.end(), [](const field& a, const field& b) { return a.name < b.name; });
  for (std::size_t i = 0; i < expected.size(); ++i) {
    require(sorted[i].name == expected[i].name && sorted[i].value == expected[i].value,
            "sorted() is a stable sort of all() by name", input);
  }
  // The sort puts the fields of one name side by side in arrival order, so
  // each run of `expected` gives that name's count and first value at once,
  // and one lookup per name checks what a scan of all() per field did,
  // without its n^2 compares (a header of a thousand cookies made that most
  // of an execution).
  for (std::size_t start = 0; start < expected.size();) {
    std::size_t end = start + 1;
    while (end < expected.size() && expected[end].name == expected[start].name) ++end;
    const std::string_view name = expected[start].name;
    require(list.get_all(name).size() == end - start, "get_all() finds every field of a name", input);
    require(list.get(name) == expected[start].value, "get() is the first value sent", input);
    start = end;
  }
}

}  // namespace stet::fuzz
