#pragma once
// The router's door to a response cache: dispatch hands the request of a
// route that has one (route_options::cache) and the route's handler here,
// instead of calling the handler itself. The cache (src/cache/) defines
// answer_cached(); the router knows no more of it than this.

#include <stet/request.hpp>
#include <stet/response.hpp>

#include <stet/detail/route_handler.hpp>

#include <cstddef>
#include <memory>

namespace stet::detail {

class cached_route;

/// What answering a request takes when the cache cannot.
struct cached_call {
  const std::shared_ptr<const handler_box>& handler;
  const capture* args = nullptr;  ///< the handler's route arguments
  std::size_t arg_count = 0;
  bool compress = true;  ///< route_options::compress: variants may be made
};

/// The answer to `req` from `route`'s cache: a stored answer, the handler's
/// (stored when the rules allow), or a pending one while another request runs
/// the handler for the same key. Throws what the handler throws.
response answer_cached(const cached_route& route, request& req, const cached_call& call);

}  // namespace stet::detail
