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
  std::vector<field> expected(all.begin(), all.end());
  std::stable_sort(expected.begin(), expected.end(), [](const field& a, const field& b) { return a.name < b.name; });
  for (std::size_t i = 0; i < expected.size(); ++i) {
    require(sorted[i].name == expected[i].name && sorted[i].value == expected[i].value,
            "sorted() is a stable sort of all() by name", input);
  }
  for (const field& f : all) {
    const auto run = list.get_all(f.name);
    const std::size_t count = static_cast<std::size_t>(
        std::count_if(all.begin(), all.end(), [&](const field& g) { return g.name == f.name; }));
    require(run.size() == count, "get_all() finds every field of a name", input);
    const auto first = std::find_if(all.begin(), all.end(), [&](const field& g) { return g.name == f.name; });
    require(list.get(f.name) == first->value, "get() is the first value sent", input);
  }
}

}  // namespace stet::fuzz
