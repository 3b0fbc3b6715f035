#pragma once
// The library's own way into a response: fields whose names and values are
// constants stet wrote itself skip the checks a handler's fields go through.

#include <stet/response.hpp>

#include <string_view>

namespace stet::detail {

struct response_access {
  /// Appends "name: value" as it is. Only for values known valid at compile
  /// time or validated once when they were rendered.
  static void append_trusted_field(response& r, std::string_view name, std::string_view value) {
    r.append_field(name, value);
  }
};

}  // namespace stet::detail
