#pragma once
// Whether a handler's answer may be stored, and the entry made from it. The
// rules keep per-client answers out of a shared cache: Set-Cookie, Cache-Control
// private or no-store, statuses the route did not allow, bodies over the
// entry bound, and bodies that are not plain bytes. Everything a hit needs is
// derived here, once: the strong ETag (the body's SHA-256 unless the handler
// set one), the Vary line, whether variants may be made, the tags.

#include <stet/compression.hpp>
#include <stet/request.hpp>
#include <stet/response.hpp>
#include <stet/response_cache.hpp>

#include "cache/cache_entry.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace stet::detail {

/// Whether `r`'s fields and status let it be stored under `policy` (the body
/// is checked by make_entry(); a stream by the tee).
bool storable_head(const response& r, const cache_policy& policy) noexcept;

/// What the entry is made from, besides the response.
struct entry_facts {
  const cache_policy& policy;
  const compression_options& compression;
  bool route_compresses = true;  ///< route_options::compress
  std::uint32_t route = 0;
  cache_clock::time_point now{};
};

/// policy.tags of the answer `r` to `req` (none without the function).
/// @throws whatever policy.tags throws.
std::vector<std::string> answer_tags(const cache_policy& policy, const request& req, const response& r);

/// The entry for the answer whose status and fields are `head`'s and whose
/// body is `body` (the response's bytes, or a stream's tee); null when the
/// body is over policy.max_entry_bytes or no ETag can be made.
/// @throws std::bad_alloc
std::shared_ptr<cache_entry> make_entry(const response& head, std::shared_ptr<const std::string> body,
                                        const entry_facts& facts, std::vector<std::string> tags);

}  // namespace stet::detail
