#include <stet/body.hpp>

#include "response/response_access.hpp"
#include "route/body_access.hpp"
#include "route/pending_response.hpp"

#include <mutex>

namespace stet {
namespace detail {
namespace {

// Shared by the sink and the connection feeding it: resume() may come from any
// thread while the connection finishes with the sink on its own.
struct body_wakeup {
  std::mutex mutex;
  std::function<void()> wake;  // empty once the connection is done with the sink
};

}  // namespace

void body_sink_access::attach(body_sink& sink, std::function<void()> wake) {
  auto w = std::make_shared<body_wakeup>();
  w->wake = std::move(wake);
  sink.wake_ = std::move(w);
}

void body_sink_access::detach(body_sink& sink) noexcept {
  auto* w = static_cast<body_wakeup*>(sink.wake_.get());
  if (w == nullptr) return;
  std::function<void()> gone;  // destroyed outside the lock: it may hold the connection
  {
    const std::lock_guard lock(w->mutex);
    gone = std::move(w->wake);
    w->wake = nullptr;
  }
}

response feed_whole_body(pending_response& state, request& req) {
  body_sink& sink = *state.body;
  const std::string_view body = req.body();
  // In-process there is no connection to hold back: a pause is over at once.
  if (!body.empty()) (void)sink.on_data(body);
  response answer = sink.on_end();
  if (std::shared_ptr<pending_response> later = response_access::take_pending(answer)) {
    wait_in_process(*later);
    answer = finish_pending(*later, req);
  }
  state.complete(std::move(answer));
  return finish_pending(state, req);
}

}  // namespace detail

body_sink::body_sink() noexcept = default;
body_sink::~body_sink() = default;

void body_sink::resume() noexcept {
  const std::shared_ptr<void> keep = wake_;  // the connection may detach meanwhile
  auto* w = static_cast<detail::body_wakeup*>(keep.get());
  if (w == nullptr) return;
  const std::lock_guard lock(w->mutex);
  if (w->wake) w->wake();
}

response read_body(std::unique_ptr<body_sink> sink) {
  auto state = std::make_shared<detail::pending_response>();
  state->body = std::move(sink);
  return detail::response_access::make_pending(std::move(state));
}

}  // namespace stet
