#pragma once
// A request waiting for another request's run of the same key's handler
// (single flight). Its connection waits on `slot` as for an asynchronous
// handler, so no worker blocks. When the run ends the leader either answers
// it from the stored entry, or, when nothing was stored (a per-client answer,
// an error, a stream), sends it back to its own thread to run the handler
// there: another client's uncacheable answer is never handed out.

#include <stet/request.hpp>

#include <stet/detail/coro_frame.hpp>
#include <stet/detail/route_handler.hpp>

#include "cache/hit_answer.hpp"
#include "coro/executor.hpp"
#include "route/pending_response.hpp"

#include <array>
#include <memory>

namespace stet::detail {

struct cache_waiter : resumable {
  std::shared_ptr<pending_response> slot;  // what the waiting connection holds
  hit_request facts;                       // read on the waiter's thread; views into *req
  request* req = nullptr;                  // untouched by its connection while the answer is pending
  std::shared_ptr<const handler_box> handler;
  std::array<capture, max_route_params> args{};
  std::size_t arg_count = 0;
  executor* home = nullptr;                 // the waiter's thread
  std::shared_ptr<cache_waiter> self;       // alive until its task ran
  std::shared_ptr<pending_response> inner;  // an asynchronous handler's own slot, when run at home
};

/// A waiter for `req` on the calling thread, or null when this thread has no
/// executor to come back to (the request then runs the handler itself).
/// @throws std::bad_alloc
std::shared_ptr<cache_waiter> make_waiter(request& req, std::shared_ptr<const handler_box> handler, const capture* args,
                                          std::size_t arg_count);

/// Nothing was stored: the waiter runs the handler on its own thread.
void send_home(const std::shared_ptr<cache_waiter>& w) noexcept;

}  // namespace stet::detail
