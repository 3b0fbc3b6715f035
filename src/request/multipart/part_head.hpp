#pragma once
// A multipart part's header section: the field lines, then what
// Content-Disposition and Content-Type say (RFC 7578 4.2, 4.4).

#include <stet/error.hpp>
#include <stet/multipart.hpp>

#include <span>
#include <string_view>

namespace stet::detail {

/// Why a header section was refused; `code` is error{} (0) when it was not.
struct part_head_error {
  stet::error code{};
  std::string_view detail;
  explicit operator bool() const noexcept { return code != stet::error{}; }
};

/// Parses `block`, the part's field lines each ending in CRLF (the closing
/// blank line not included), into `part.headers` (stored in `slots`, at most
/// slots.size() fields), `part.name`, `part.filename` and `part.content_type`.
/// The views in `part` point into `block`, except a name or filename with
/// escapes, which is decoded into `scratch` (at least block.size() bytes), so
/// the raw header values stay as sent.
part_head_error parse_part_head(std::string_view block, std::span<char> scratch, std::span<multipart_header> slots,
                                multipart_part& part) noexcept;

}  // namespace stet::detail
