#include <stet/multipart.hpp>

#include "http/token.hpp"
#include "request/multipart/parameters.hpp"

#include <fmt/format.h>

namespace stet {
namespace {

// RFC 2046 5.1.1 bchars; a space is one too, but not as the last character.
constexpr std::array<bool, 256> bchar_table = detail::alnum_and("'()+_,-./:=? ");

constexpr bool is_boundary(std::string_view b) noexcept {
  if (b.empty() || b.size() > 70 || b.back() == ' ') return false;
  for (char c : b) {
    if (!bchar_table[static_cast<unsigned char>(c)]) return false;
  }
  return true;
}

multipart_boundary_result bad_boundary(std::string_view detail) noexcept {
  return {{}, {make_error_code(error::bad_multipart_boundary), detail, 0}};
}

}  // namespace

stet::status multipart_error::status() const noexcept {
  if (!code) return status::ok;
  if (code.category() == error_category()) return http_status(static_cast<stet::error>(code.value()));
  return status::bad_request;
}

std::string multipart_error::message() const {
  if (!code) return {};
  if (detail.empty()) return code.message();
  // A Content-Type without a usable boundary is refused before any body byte:
  // a position in the body would point at nothing.
  const bool about_the_header =
      code == make_error_code(error::bad_multipart_boundary) || code == make_error_code(error::unsupported_media_type);
  if (about_the_header) return fmt::format("{}: {}", code.message(), detail);
  return fmt::format("{}: {} (at byte {})", code.message(), detail, offset);
}

multipart_boundary_result multipart_boundary(std::string_view content_type) noexcept {
  const detail::type_and_parameters split = detail::split_type(content_type);
  if (!detail::iequals(split.type, "multipart/form-data")) {
    return {{}, {make_error_code(error::unsupported_media_type), "the Content-Type is not multipart/form-data", 0}};
  }
  detail::parameter_reader reader(split.parameters);
  std::string_view boundary;
  bool seen = false;
  for (;;) {
    const detail::parameter_step step = reader.next();
    if (step.status == detail::parameter_status::end) break;
    if (step.status == detail::parameter_status::malformed) return bad_boundary("malformed Content-Type parameters");
    if (!detail::iequals(step.param.name, "boundary")) continue;
    if (seen) return bad_boundary("more than one boundary parameter");
    seen = true;
    boundary = step.param.value;
  }
  if (!seen) return bad_boundary("no boundary parameter");
  if (!is_boundary(boundary)) {
    return bad_boundary(
        "the boundary is not 1 to 70 RFC 2046 bchars (letters, digits, '()+_,-./:=? ), not ending in a space");
  }
  return {boundary, {}};
}

}  // namespace stet
