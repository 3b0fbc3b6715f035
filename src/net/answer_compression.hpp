#pragma once
// The connection's two compression steps, kept out of connection.cpp: decoding
// a coded request body before the handler runs (opt-in), and compressing the
// handler's answer before it is queued. Each is one call; with the feature off,
// or for an answer too small to code (may_compress()), the connection does not
// call them at all.

#include <stet/compression.hpp>
#include <stet/error.hpp>

#include <optional>
#include <string>

namespace stet {
class request;
class response;
}  // namespace stet

namespace stet::detail {

struct exchange;

/// What the writer must know about an answer compress_answer() touched.
struct answer_coding {
  /// HEAD of a coded variant: send no Content-Length (framing::no_content_length).
  bool omit_content_length = false;
};

/// Compresses `r` (the answer to `req`, still readable) as `s` says, or
/// replaces it with a 406 page when the client refuses identity and every
/// coding offered. Call only when may_compress(r, s); the route's compress option has
/// already become r.no_compression() in dispatch.
/// @throws std::bad_alloc when out of memory.
answer_coding compress_answer(const compression_settings& s, const request& req, response& r);

/// For a buffered request body with a Content-Encoding: decodes x.body in place
/// (at most s.max_decoded_body_bytes) and drops the Content-Encoding field from
/// the request's field list, so the handler sees the body as sent before coding
/// (Content-Length still says how many coded bytes came). Nothing to do
/// (no body, no Content-Encoding, or `identity`): nullopt, no work beyond a
/// scan of the fields. Otherwise nullopt on success, or the error to answer
/// with: decoded_body_too_large (413), unsupported_content_coding (415),
/// bad_content_coding (400). Call only when s.decode_request_bodies, after
/// the request is prepared and its body set.
/// @throws std::bad_alloc when out of memory.
std::optional<stet::error> decode_request_body(const compression_settings& s, exchange& x);

}  // namespace stet::detail
