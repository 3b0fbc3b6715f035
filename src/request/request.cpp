#include <stet/request.hpp>

#include "http/token.hpp"
#include "request/forwarded.hpp"

namespace stet {

std::optional<std::string_view> request::header(std::string_view name) const noexcept {
  for (const header_field& field : fields_) {
    if (detail::iequals(field.name, name)) return field.value;
  }
  return std::nullopt;
}

// Once per request at most: the memo is forgotten by begin_request().
const detail::client_origin& request::resolve_origin() const noexcept {
  static const detail::proxy_trust nobody;
  origin_ =
      detail::resolve_client_origin({fields_, remote_endpoint(), scheme_, host_}, trust_ != nullptr ? *trust_ : nobody);
  origin_resolved_ = true;
  return origin_;
}

}  // namespace stet
