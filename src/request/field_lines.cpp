#include "request/field_lines.hpp"

#include <stet/request.hpp>

#include "http/token.hpp"

#include <algorithm>

namespace stet::detail {

std::string_view join_field_lines(std::span<const header_field> fields, std::string_view name,
                                  std::pmr::memory_resource& arena) {
  static constexpr std::string_view separator = ", ";
  std::size_t size = 0;
  std::size_t lines = 0;
  for (const header_field& f : fields) {
    if (!iequals(f.name, name)) continue;
    size += f.value.size();
    ++lines;
  }
  if (lines == 0) return {};
  size += (lines - 1) * separator.size();
  char* const out = static_cast<char*>(arena.allocate(size, 1));
  char* p = out;
  bool first = true;
  for (const header_field& f : fields) {
    if (!iequals(f.name, name)) continue;
    if (!first) p = std::copy(separator.begin(), separator.end(), p);
    p = std::copy(f.value.begin(), f.value.end(), p);
    first = false;
  }
  return {out, size};
}

std::optional<std::string_view> combined_field(std::span<const header_field> fields, std::string_view name,
                                               std::pmr::memory_resource& arena) {
  std::optional<std::string_view> first;
  for (const header_field& f : fields) {
    if (!iequals(f.name, name)) continue;
    if (first) return join_field_lines(fields, name, arena);
    first = f.value;
  }
  return first;
}

std::optional<std::string_view> combined_field(const request& req, std::string_view name) {
  return combined_field(req.header_fields(), name, req.arena());
}

}  // namespace stet::detail
