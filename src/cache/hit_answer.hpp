#pragma once
// An answer built from a stored entry: the stored fields and bytes (shared,
// not copied), the entity-tag of the coding sent, Age, and the decision of
// http/conditional.hpp for If-None-Match, If-Match and Range. The request's
// side is read once into a hit_request, so that a request waiting for another's
// run of the handler can be answered later, on the leader's thread.

#include <stet/compression.hpp>
#include <stet/request.hpp>
#include <stet/response.hpp>

#include "cache/cache_entry.hpp"
#include "http/conditional.hpp"

#include <optional>
#include <string_view>

namespace stet::detail {

/// What a cached answer depends on in its request; views into the request.
struct hit_request {
  request_conditions conditions;
  std::optional<std::string_view> accept_encoding;
};
hit_request read_hit_request(const request& req) noexcept;

/// The coding to send `e` in for `q` under `s`: identity unless the entry is
/// compressible, the cache makes variants, there is no Range and a coding is accepted.
content_coding choose_coding(const cache_entry& e, const hit_request& q, const compression_options& s) noexcept;

/// The answer to `q` from `e`, sent as `coded` (null: identity) at `now`;
/// never compressed again on its way out. `cached`: no handler ran for this
/// request (false for the request whose run made the entry).
response answer_from_entry(const cache_entry& e, const hit_request& q, const coded_variant* coded,
                           std::string_view coding, cache_clock::time_point now, bool cached);

}  // namespace stet::detail
