#include "cache/cache_waiter.hpp"

#include "response/response_access.hpp"

#include <algorithm>
#include <exception>

namespace stet::detail {
namespace {

// An asynchronous handler run at home answered: its answer (or failure) goes
// to the slot the waiting connection holds. Runs on the sending thread.
void forward_inner(std::shared_ptr<void> p) noexcept {
  const std::shared_ptr<cache_waiter> w = std::static_pointer_cast<cache_waiter>(std::move(p));
  pending_response& inner = *w->inner;
  if (inner.dropped()) {
    w->slot->drop();
  } else if (inner.failure()) {
    w->slot->fail(inner.failure());
  } else {
    w->slot->complete(inner.take());
  }
}

void settle_from_inner(const std::shared_ptr<cache_waiter>& w) noexcept {
  if (w->inner->on_ready(&forward_inner, w)) return;
  forward_inner(w);
}

// On the waiter's own thread: its request is its connection's again to read.
void run_at_home(resumable& r) noexcept {
  auto& w = static_cast<cache_waiter&>(r);
  const std::shared_ptr<cache_waiter> keep = std::move(w.self);
  w.home->release();
  if (w.slot->abandoned()) {
    w.slot->drop();
    return;
  }
  try {
    response answer = w.handler->invoke(*w.handler, *w.req, w.args.data());
    if (response_access::pending(answer) != nullptr) {
      w.inner = response_access::take_pending(answer);
      settle_from_inner(keep);
      return;
    }
    w.slot->complete(std::move(answer));
  } catch (...) {
    w.slot->fail(std::current_exception());
  }
}

}  // namespace

std::shared_ptr<cache_waiter> make_waiter(request& req, std::shared_ptr<const handler_box> handler, const capture* args,
                                          std::size_t arg_count) {
  executor* home = this_thread_executor();
  if (home == nullptr) return nullptr;
  auto w = std::make_shared<cache_waiter>();
  w->slot = std::make_shared<pending_response>();
  w->facts = read_hit_request(req);
  w->req = &req;
  w->handler = std::move(handler);
  w->arg_count = std::min(arg_count, w->args.size());
  std::copy_n(args, w->arg_count, w->args.begin());
  w->home = home;
  w->run = &run_at_home;
  // The worker keeps serving until the waiter is answered, whatever else it does.
  home->hold();
  return w;
}

void send_home(const std::shared_ptr<cache_waiter>& w) noexcept {
  w->self = w;
  w->home->post(*w);
}

}  // namespace stet::detail
