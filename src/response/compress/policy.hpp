#pragma once
// When to compress a response, as a pure function of facts about the request
// and the response: no I/O, no allocation. The connection (or the static file
// responder) gathers the facts, asks, and carries the answer out
// (response_compression.hpp does that for a handler's response).

#include <stet/compression.hpp>
#include <stet/status.hpp>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace stet::detail {

/// What the request says.
struct compression_request {
  bool head = false;                                ///< HEAD: decided as for GET, but the body is not sent
  bool range = false;                               ///< a Range field: the answer stays on the identity representation
  std::optional<std::string_view> accept_encoding;  ///< every line's value as one list; nullopt: none
};

/// What the response is.
struct compression_response {
  stet::status status = stet::status::ok;
  std::string_view content_type;      ///< the field value; empty when absent
  bool has_content_encoding = false;  ///< already coded (by the handler, or a precompressed file)
  bool no_transform = false;          ///< Cache-Control: no-transform
  bool streamed = false;              ///< a stream producer: the size is unknown and it is always eligible
  bool file = false;                  ///< a sendfile body: not compressed here (static files keep variants)
  std::uint64_t size = 0;             ///< bytes of the identity body (ignored when streamed)
  bool allowed = true;                ///< false: response::no_compression() or the route said no
};

/// The decision.
struct compression_plan {
  /// The coding to send the body in; identity: send it as it is.
  content_coding coding = content_coding::identity;
  /// Accept-Encoding must be listed in Vary: the coding chosen depended on it
  /// (true for identity answers too, whenever another Accept-Encoding could
  /// have changed the coding, and for 206 and 304 answers of such a resource).
  bool vary = false;
  /// Identity is refused and no offered coding is acceptable, for a response
  /// that would otherwise be compressed: the caller may answer 406 (RFC 9110
  /// 12.5.3 allows sending identity instead). `coding` is identity.
  bool not_acceptable = false;
  /// HEAD of a coded variant: its length is not known without compressing a
  /// body that is not sent, so Content-Length is omitted (as nginx does).
  bool omit_content_length = false;

  friend bool operator==(const compression_plan&, const compression_plan&) = default;
};

/// Whether `content_type` (parameters ignored) matches one of `patterns`:
/// "type/subtype", "type/*" or "type/*+suffix", case-insensitively.
bool media_type_listed(std::string_view content_type, std::span<const std::string> patterns) noexcept;

/// The plan for one response. The exclusions, in order: compression off, or
/// off for this response/route; 1xx and 204 (no body, no Vary); a body already
/// coded; Cache-Control: no-transform; a media type not on the list; a file
/// body; a body under settings.min_bytes (not streamed). Those answers do not
/// vary. Then 206, 304 and requests with Range get identity with Vary, and so
/// does a request without Accept-Encoding (RFC 9110 allows any coding then; stet,
/// like most servers, compresses only for a client that asked).
compression_plan plan_compression(const compression_request& request, const compression_response& response,
                                  const compression_options& settings) noexcept;

}  // namespace stet::detail
