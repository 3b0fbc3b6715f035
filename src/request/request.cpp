#include <stet/request.hpp>

#include "http/token.hpp"

namespace stet {

std::optional<std::string_view> request::header(std::string_view name) const noexcept {
  for (const header_field& field : fields_) {
    if (detail::iequals(field.name, name)) return field.value;
  }
  return std::nullopt;
}

}  // namespace stet
