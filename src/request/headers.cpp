#include <stet/headers.hpp>

#include "counters/memo_stats.hpp"
#include "request/arena.hpp"
#include "request/field_index.hpp"
#include "request/header_names.hpp"
#include "counters/memo_stats.hpp"

namespace stet {

header_map index_headers(std::span<const header_field> fields, std::pmr::memory_resource& arena) {
  ++detail::this_thread_memo_stats().header_builds;
  header_field* index = detail::arena_array<header_field>(arena, fields.size());
  for (std::size_t i = 0; i < fields.size(); ++i) {
    index[i] = header_field{detail::lowercase_header_name(fields[i].name, arena), fields[i].value};
  }
  const std::span<header_field> sorted(index, fields.size());
  detail::stable_sort_by_name(sorted, arena);
  return header_map(sorted);
}

}  // namespace stet
