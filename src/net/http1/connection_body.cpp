// The connection's body path: what the route says about the body (its limit,
// whether it streams) is decided from the head, before 100 Continue; a
// streaming route's sink takes the body piece by piece, in the read buffer,
// and the connection reads only as fast as the sink takes it; an answer given
// before the body is read leaves the rest discarded within bounds, or the
// connection closed.

#include "net/http1/connection.hpp"

#include "http/response_writer.hpp"
#include "net/server/worker.hpp"
#include "request/request_access.hpp"
#include "response/error_pages.hpp"
#include "route/body_access.hpp"
#include "route/router_access.hpp"

#include <algorithm>

namespace stet::detail {
namespace {

// A streamed body is read in pieces of up to this much behind its head.
constexpr std::size_t stream_read_bytes = 64 * 1024;
// An answer given before its body is read: a rest of known length up to this
// is read and thrown away, keeping the connection; more (or a chunked rest of
// unknown length) and the connection closes after the answer instead.
constexpr std::uint64_t max_discard_bytes = 256 * 1024;

}  // namespace

// The route's say on the body comes first: its limit (413 before any 100
// Continue), whether it streams (its handler runs now), and, for 100-continue,
// whether the body will be read at all.
bool connection::on_head_complete() {
  exchange& x = *x_;
  const bool awaits_100 = x.parser.expects_continue() && x.begin == x.end;  // none of the body came yet
  if (!assemble_request(x, origin())) {
    fail(error::bad_target);
    return false;
  }
  head_assembled_ = true;
  const server_options& options = owner_.options();
  const body_plan plan = router_access::match(owner_.routes(), x.request, x.route);
  const std::uint64_t limit = plan.max_body_bytes != 0 ? plan.max_body_bytes : options.max_body_bytes;
  x.parser.set_body_limit(limit);
  if (x.parser.content_length() > limit) {
    fail(error::body_too_large);
    return false;
  }
  restart_rate_window(x);
  if (plan.stream) return start_stream(awaits_100);
  if (!awaits_100) return true;
  if (!plan.routed) {
    // Nothing will take the body: answer now (404, 405, ...) and close without reading it.
    queue_response(owner_.routes().handle(x.request), x.request.method() == stet::method::head, true);
    return false;
  }
  x.output.text() += response_writer::continue_line();
  return true;
}

// The handler runs on the head. It takes the body (read_body()) or answers
// now, before any of the body is read (authentication refusing an upload).
bool connection::start_stream(bool awaits_100) {
  hold_head_for_stream();
  exchange& x = *x_;
  begin_dispatch();
  request_access::set_body(x.request, {});
  observer_.dispatching(owner_, x.request);
  dispatch_outcome o = router_access::start(owner_.routes(), x.request, x.route);
  if (o.what == dispatch_outcome::kind::body_sink) {
    upload_ = std::move(o.slot);
    x.parser.set_body_mode(request_parser::body_mode::stream);
    auto wake = [self = shared_from_this(), guard = asio::make_work_guard(owner_.io())] {
      asio::post(guard.get_executor(), [self] { self->on_body_resumed(); });
    };
    body_sink_access::attach(*upload_->body, std::move(wake));
    if (awaits_100) x.output.text() += response_writer::continue_line();
    return true;
  }
  // Answered before the body: a client waiting for 100 Continue sends none.
  const bool keep = !awaits_100 && discard_rest_of_body();
  if (!keep) keep_alive_ = false;
  answered_early_ = true;
  if (o.what == dispatch_outcome::kind::pending) {
    pending_ = std::move(o.slot);  // an asynchronous answer: nothing is read meanwhile
    return false;
  }
  answer(std::move(o), x.request);
  return keep;
}

// Whether the rest of the body can be read and dropped, keeping the
// connection; the parser is set to drop it either way.
bool connection::discard_rest_of_body() noexcept {
  request_parser& p = x_->parser;
  p.set_body_mode(request_parser::body_mode::discard);
  if (p.content_length() == 0) return false;  // chunked: its length is unknown
  return p.content_length() - p.body_bytes() <= max_discard_bytes;
}

// The request's views point into the head, so the head must stay put while
// the body streams: it moves to the buffer's start now, once, with room
// behind it for body reads (make_room() then never moves it), and the views
// follow it.
void connection::hold_head_for_stream() {
  exchange& x = *x_;
  const std::size_t wanted = x.parser.head_end() - x.parser.message_start() + stream_read_bytes;
  if (x.parser.message_start() == 0 && x.capacity >= wanted) return;
  // A larger buffer is this connection's until its exchange is given back (freed).
  move_message_to_front(x, std::max(wanted, x.capacity));
}

// The sink takes `piece`; one that throws is aborted and answered 500 (nullopt).
std::optional<body_flow> connection::offer_piece(std::string_view piece) {
  try {
    return upload_->body->on_data(piece);
  } catch (const std::exception& e) {
    owner_.report_error("body sink", {}, e.what());
    abort_stream(std::make_error_code(std::errc::operation_canceled));
    take_exchange();
    response failed = error_page(status::internal_server_error, x_->request);
    answer(std::move(failed.close_connection()), x_->request);
    return std::nullopt;
  }
}

// A piece goes to the sink; what it says sets the pace.
bool connection::deliver_piece() {
  const std::optional<body_flow> flow = offer_piece(x_->parser.piece());
  if (!flow) return false;
  switch (*flow) {
    case body_flow::more: settle_body_ = true; return true;
    case body_flow::pause: body_paused_ = true; return false;
    case body_flow::answer: end_stream(false); return !close_after_write_ && !pending_;
  }
  return true;
}

// A sink given for a body that is already whole (a request without one, which
// the parser completes with its head, or a route that buffers its body): it
// takes the body in one piece now. Nothing is left to read, so a pause is
// over at once and the end follows.
void connection::feed_whole_body(std::shared_ptr<pending_response> sink) {
  upload_ = std::move(sink);
  const std::string_view body = x_->request.body();
  if (!body.empty() && !offer_piece(body)) return;
  end_stream(true);
}

// The sink's answer: at the body's end (`complete`), or early, when the rest
// of the body is discarded.
void connection::end_stream(bool complete) {
  const std::shared_ptr<pending_response> state = std::move(upload_);
  body_sink_access::detach(*state->body);
  if (!complete) {
    answered_early_ = true;
    if (!discard_rest_of_body()) keep_alive_ = false;
  }
  response r;
  try {
    r = state->body->on_end();
  } catch (const std::exception& e) {
    owner_.report_error("body sink", {}, e.what());
    r = error_page(status::internal_server_error, x_->request);
  }
  dispatch_outcome o = dispatch_outcome::from(std::move(r));
  if (o.slot) {
    // An asynchronous answer: the route's after-hooks go with it.
    o.slot->afters = std::move(state->afters);
    o.slot->report = state->report;
    o.slot->compress = state->compress;
    pending_ = std::move(o.slot);
    return;
  }
  state->complete(std::move(o.answer));
  answer(finish_pending(*state, x_->request), x_->request);
}

void connection::abort_stream(std::error_code why) noexcept {
  if (!upload_) return;
  const std::shared_ptr<pending_response> state = std::move(upload_);
  body_sink_access::detach(*state->body);
  body_paused_ = false;
  state->body->on_abort(why);
  // A coroutine cancelled while an offloaded function runs goes when it
  // returns, and its frame may read the request until then: the exchange
  // holding it is lent to its answer slot; what follows takes a fresh one.
  if (!lent_ && state->handler_slot && state->handler_slot->holds_request()) {
    lent_ = std::move(x_);
    state->handler_slot->keep_until_settled(shared_from_this());
  }
}

void connection::on_body_resumed() {
  if (phase_ == phase::closed || !body_paused_) return;
  body_paused_ = false;
  settle_body_ = true;
  // The time the sink held the body is not the client's: its rate is measured afresh.
  restart_rate_window(*x_);
  phase_ = phase::reading;
  process();
}

// No clock read per request when no minimum body rate is set.
void connection::restart_rate_window(exchange& x) const noexcept {
  if (owner_.options().min_body_rate == 0) return;
  x.rate_window_start = steady::now();
  x.rate_window_bytes = 0;
}

// Slow-drip protection: each body_rate_window must bring min_body_rate bytes
// a second at least (a body that stalls outright is the body timeout's).
bool connection::body_too_slow(std::size_t received, steady::time_point now) noexcept {
  const server_options& options = owner_.options();
  if (options.min_body_rate == 0 || !x_->parser.head_done()) return false;
  x_->rate_window_bytes += received;
  const steady::duration elapsed = now - x_->rate_window_start;
  if (elapsed < options.body_rate_window) return false;
  const double seconds = std::chrono::duration<double>(elapsed).count();
  const bool slow = static_cast<double>(x_->rate_window_bytes) < static_cast<double>(options.min_body_rate) * seconds;
  x_->rate_window_start = now;
  x_->rate_window_bytes = 0;
  return slow;
}

}  // namespace stet::detail
