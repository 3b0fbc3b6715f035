#pragma once
// The one call that compresses a handler's response: gathers the facts from
// the request and the response, asks plan_compression(), and carries the plan
// out (Vary, Content-Encoding, variant ETag, the coded body or a compressing
// stream). Meant to run where a response is queued, after the handler and the
// after-hooks, while the request is still readable.

#include <stet/compression.hpp>
#include <stet/response.hpp>

#include "response/compress/policy.hpp"

namespace stet {
class request;
}  // namespace stet

namespace stet::detail {

/// Whether compress_response() can leave any mark on `r`: not for the common
/// small answer (/plaintext, /json), a sized body under min_bytes that is
/// neither a 206 nor a 304, for which every path through plan_compression()
/// ends in identity without Vary. Inline, so such an answer costs a compare.
inline bool may_compress(const response& r, const compression_options& s) noexcept {
  const stet::status code = r.status();
  return s.enabled && (r.is_stream() || code == stet::status::partial_content || code == stet::status::not_modified ||
                       r.content_length() >= s.min_bytes);
}

/// The request's side of the decision: HEAD, Range, Accept-Encoding (several
/// lines joined into one list in the request's arena, RFC 9110 5.3).
/// @throws std::bad_alloc when the arena cannot hold the joined list.
compression_request compression_facts(const request& q);

/// The response's side, read in one pass over its header block.
compression_response compression_facts(const response& r) noexcept;

/// compress_answer() past its inline test.
bool compress_or_refuse(const compression_options& s, const request& q, response& r);

/// Plans and applies compression to `r` for `q`. `route_allows` is the
/// route's compress option. Returns the plan, which the writer needs for one
/// thing: plan.omit_content_length (HEAD of a coded variant). A plan whose
/// coding could not be applied (the library failed) comes back as identity
/// with the body untouched; not_acceptable is left to the caller (406 or not).
/// @throws std::bad_alloc when out of memory.
compression_plan compress_response(const request& q, response& r, const compression_options& s,
                                   bool route_allows = true);

/// The one call where an answer is queued: compresses `r`, the answer to `q`
/// (still readable), as `s` says, or replaces it with a 406 page when the
/// client refuses identity and every coding offered. Returns whether the
/// writer must send no Content-Length (HEAD of a coded variant). The route's
/// compress option has already become r.no_compression() in dispatch. For the
/// common small answer this is one inline compare.
/// @throws std::bad_alloc when out of memory.
inline bool compress_answer(const compression_options& s, const request& q, response& r) {
  return may_compress(r, s) && compress_or_refuse(s, q, r);
}

}  // namespace stet::detail
