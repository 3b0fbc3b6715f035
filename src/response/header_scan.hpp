#pragma once
// Reading a response's serialised header block ("Name: value\r\n" lines, as
// response keeps it) in one pass.

#include <string_view>

namespace stet::detail {

/// Calls visit(name, value) for each field of `block`, in order, until it returns true.
template <typename Visit>
void for_each_field(std::string_view block, Visit&& visit) {
  while (!block.empty()) {
    const std::size_t eol = block.find("\r\n");
    const std::string_view line = block.substr(0, eol);
    const std::size_t colon = line.find(':');
    if (colon != std::string_view::npos) {
      const std::string_view value = line.substr(colon + 1);
      if (visit(line.substr(0, colon), value.starts_with(' ') ? value.substr(1) : value)) return;
    }
    if (eol == std::string_view::npos) break;
    block.remove_prefix(eol + 2);
  }
}

}  // namespace stet::detail
