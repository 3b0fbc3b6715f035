#pragma once
// The pieces of answering through the cache that the paths share: an answer
// from an entry (choosing and making its variant), and the handler run.
// cached_route.cpp holds the decisions; refresh.cpp and stream_tee.cpp the
// two ways an answer is stored later.

#include <stet/request.hpp>
#include <stet/response.hpp>

#include "cache/cached_route.hpp"
#include "cache/hit_answer.hpp"
#include "route/cache_seam.hpp"

#include <cstdint>
#include <memory>
#include <string>

namespace stet::detail {

/// The answer to a request described by `q` from `e` (held under `k`).
response entry_answer(const cached_route& route, const entry_table::key& k, const cache_entry& e, const hit_request& q,
                      bool cached);

/// Runs the route's handler for `req`.
inline response run_handler(const cached_call& call, request& req) {
  return call.handler->invoke(*call.handler, req, call.args);
}

/// Refreshes `stale` (held under `key`) in the background with a copy of
/// `req`, unless a refresh is already queued or running for it.
void refresh_in_background(const cached_route& route, const request& req, const cached_call& call,
                           const entry_table::key& key, const std::shared_ptr<const cache_entry>& stale);

/// `r`, a streamed answer, with its body teed into an entry stored under `key`
/// when it ends within the entry bound (abandoned past it, never truncated).
/// `epoch`: when the handler run began (invalidation_log::now()).
response tee_stream(const cached_route& route, const request& req, response r, std::string key, std::uint64_t epoch,
                    bool compress);

}  // namespace stet::detail
