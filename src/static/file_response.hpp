#pragma once
// From facts about a file and a conditional/range decision to a response. The
// store (file_store.cpp) finds the file; conditional.cpp decides; this file
// only writes down the answer the responder (static_files.cpp) sends.

#include <stet/request.hpp>
#include <stet/response.hpp>

#include "http/conditional.hpp"
#include "static/file_entry.hpp"

#include <optional>
#include <string_view>

namespace stet::detail {

/// The request fields the static responder reads, found in one pass over the
/// header list. The list-valued ones (If-Match, If-None-Match,
/// Accept-Encoding) sent as several lines are joined into one list in the
/// request's arena (RFC 9110 5.3); of the others the first line counts.
struct static_request_fields {
  request_conditions conditions;
  std::optional<std::string_view> accept_encoding;
};
/// @throws std::bad_alloc when the arena cannot hold a joined list.
static_request_fields read_static_fields(const request& req);

/// What is being sent.
struct file_reply {
  const file_entry& representation;     ///< the file whose bytes go out (the original or a .br/.gz sibling)
  std::string_view content_type;        ///< of the original file
  std::string_view content_encoding;    ///< "br", "gzip", "zstd" or "" for identity
  bool vary = false;                    ///< siblings or variants exist: caches must key on Accept-Encoding
  std::string_view cache_control;       ///< a valid field value, appended as it is ("" sends none)
  const file_variant* coded = nullptr;  ///< a compressed variant of `representation`: its bytes and ETag go out
};

/// The validators a decision needs for `entry` (sent as its variant `coded`, when not null).
representation_facts facts_of(const file_entry& entry, const file_variant* coded = nullptr) noexcept;

/// The response for `decision` (200, 206, 304, 412 or 416). The body shares the
/// entry's bytes (whole file) or descriptor; only a range of a small file is copied.
response build_file_response(const file_reply& reply, const decision& d);

}  // namespace stet::detail
