#include "net/http1/connection.hpp"

#include "net/server/worker.hpp"
#include "request/body_decoder.hpp"
#include "request/request_access.hpp"
#include "response/compress/response_compression.hpp"
#include "response/error_pages.hpp"
#include "route/router_access.hpp"
#include "websocket/upgrade.hpp"

#include <algorithm>
#include <utility>

namespace stet::detail {
namespace {

constexpr std::size_t min_read_bytes = 2 * 1024;

std::optional<close_reason> timeout_reason(timeout_kind kind) noexcept {
  switch (kind) {
    case timeout_kind::first_byte: return close_reason::first_byte_timeout;
    case timeout_kind::header: return close_reason::header_timeout;
    case timeout_kind::body: return close_reason::body_timeout;
    case timeout_kind::idle: return close_reason::idle_timeout;
    case timeout_kind::write: return close_reason::write_timeout;
    case timeout_kind::linger:
    case timeout_kind::handler: break;
  }
  return std::nullopt;
}

}  // namespace

connection::connection(worker& owner, std::unique_ptr<transport> stream, const endpoint& peer)
    : owner_(owner), stream_(std::move(stream)), peer_(peer) {
  deadline_.target = this;
}

connection::~connection() { worker::disarm(deadline_); }

void connection::start() {
  owner_.arm(deadline_, timeout_kind::first_byte, steady::now());
  read_more();
}

exchange& connection::take_exchange() {
  if (!x_) owner_.exchanges().take(x_);
  return *x_;
}

void connection::give_back_exchange(bool clean) noexcept {
  if (!x_) return;
  if (clean) {
    owner_.exchanges().give_back_clean(x_);
  } else {
    owner_.exchanges().give_back(x_);
  }
}

void connection::drain() {
  draining_ = true;
  // A stream waiting for events is told now (stopping()): it ends with a retry hint.
  if (parked_) unpark(park_generation_);
  if (phase_ != phase::reading || in_message() || (x_ && x_->begin != x_->end)) return;
  // Idle as far as we know, but bytes the kernel already holds are a request
  // the client sent before it could learn of the stop. Closing now would reset
  // it unanswered; read it instead and answer it with Connection: close.
  if (stream_->available() > 0) return;
  close();
}

void connection::close() noexcept {
  if (phase_ == phase::closed) return;
  // A paused sink's wake-up may hold the last reference (abort_stream() lets it go).
  const std::shared_ptr<connection> alive = shared_from_this();
  phase_ = phase::closed;
  worker::disarm(deadline_);
  parked_ = false;
  park_timer_.reset();  // now: the connection may outlive its io_context (below)
  abort_stream(std::make_error_code(std::errc::connection_aborted));
  stream_->close();
  owner_.closed(*this);
  if (!pending_) {
    give_back_exchange();
    return;
  }
  // A handler still holds the request, so this connection (where the request
  // lives) must outlive its responder, possibly the io_context too. The
  // transport's socket must not: it goes once the completions its close just
  // queued have run (posted after them). The rest is handed to the answer
  // slot; that hand-over is the last use of `this` here: the handler's thread
  // may free it right after.
  std::shared_ptr<connection> self = shared_from_this();
  const std::shared_ptr<pending_response> pending = std::move(pending_);
  if (lent_) {
    give_back_exchange();  // the one the 503 used; the request lives in lent_
  } else {
    lent_ = std::move(x_);
  }
  asio::post(owner_.io(), [gone = std::move(stream_)] {});
  pending->abandon();
  pending->keep_until_settled(std::move(self));
}

void connection::on_timeout(timeout_kind kind) {
  if (phase_ == phase::closed) return;
  if (kind == timeout_kind::handler && body_paused_) {
    // A sink that paused and never resumed: the answer will not come. Its
    // wake-up, which abort_stream() lets go, may hold the last reference.
    const std::shared_ptr<connection> alive = shared_from_this();
    abort_stream(std::make_error_code(std::errc::timed_out));
    take_exchange();
    response late = error_page(status::service_unavailable, x_->request);
    answer(std::move(late.close_connection()), x_->request);
    flush();
    return;
  }
  if (kind == timeout_kind::handler) {
    abandon_answer();
    return;
  }
  if (const std::optional<close_reason> why = timeout_reason(kind)) owner_.count_close(*why);
  const bool partial_request = in_message() || (x_ && x_->begin < x_->end);
  if ((kind == timeout_kind::header && partial_request) || kind == timeout_kind::body) {
    // A request was started and stalled: say so (408) before closing.
    abort_stream(make_error_code(kind == timeout_kind::header ? error::header_timeout : error::body_timeout));
    stream_->cancel();
    fail(kind == timeout_kind::header ? error::header_timeout : error::body_timeout);
    flush();
    return;
  }
  close();
}

// Only the worker's eviction scan calls this, on connections waiting for
// input: on the first-byte, header or idle list.
bool connection::evictable() noexcept {
  return phase_ == phase::reading && deadline_.owner != nullptr && stream_->available() == 0;
}

void connection::evict() noexcept {
  const timeout_kind waiting = deadline_.owner->kind();
  owner_.count_close(waiting == timeout_kind::first_byte ? close_reason::evicted_silent
                     : waiting == timeout_kind::header   ? close_reason::evicted_partial
                                                         : close_reason::evicted_idle);
  close();
}

void connection::read_more() {
  phase_ = phase::reading;
  stream_->start_read({this, &connection::read_done, &connection::read_buffer}, std::exchange(answered_, false),
                      shared_from_this());
}

// Asked for by the transport when the read is tried: an idle connection takes
// its exchange only now, and not for a try that may find nothing.
std::span<char> connection::read_buffer(void* self, bool speculative) noexcept {
  connection& c = *static_cast<connection*>(self);
  if (speculative && !c.x_) return {};
  exchange& x = c.take_exchange();
  c.make_room();
  return {x.buffer.get() + x.end, x.capacity - x.end};
}

void connection::read_done(void* self, const boost::system::error_code& ec, std::size_t n) {
  static_cast<connection*>(self)->on_read(ec, n);
}

void connection::on_read(const boost::system::error_code& ec, std::size_t n) {
  if (phase_ != phase::reading) return;  // a timeout answered meanwhile, or closed
  if (ec) {
    close();  // EOF or reset: whatever was half-received has no one to answer to
    return;
  }
  x_->end += n;
  observer_.read_completed(owner_);
  if (x_->parser.in_message() && owner_.options().min_body_rate != 0 && body_too_slow(n, steady::now())) {
    abort_stream(make_error_code(error::body_too_slow));
    fail(error::body_too_slow);
    flush();
    return;
  }
  process();
}

// Keeps only what the open message still needs (its head), so the buffer never
// grows with the body or with pipelined requests already answered.
void connection::make_room() {
  exchange& x = *x_;
  if (!x.parser.in_message()) {
    x.begin = x.end = 0;
    return;
  }
  if (x.parser.head_done()) x.begin = x.end = x.parser.head_end();
  if (x.capacity - x.end >= min_read_bytes) return;
  // To the front, in a larger buffer if even that leaves too little room (a long head).
  const std::size_t max_capacity = owner_.options().max_header_bytes + exchange::initial_buffer_bytes;
  const std::size_t kept = x.end - x.parser.message_start();
  const bool grow = x.capacity - kept < min_read_bytes && x.capacity < max_capacity;
  move_message_to_front(x, grow ? std::min(x.capacity * 2, max_capacity) : x.capacity);
}

// Parses and answers every complete request already buffered, then writes all
// their responses at once (pipelined responses share one write).
void connection::process() {
  exchange& x = *x_;
  // After a body piece the parser runs once more even with nothing buffered:
  // the piece may have been the body's last bytes. Nothing is parsed once the
  // last response is decided (an answer that came later, e.g. a coroutine's
  // after its streamed body, said Connection: close): no answer follows it.
  while ((x.begin < x.end || std::exchange(settle_body_, false)) && !close_after_write_ && !x.stream.is_stream() &&
         !pending_ && !body_paused_ && !upgrade_ && x.output.pending() < owner_.options().max_pipeline_output_bytes) {
    if (!x.parser.in_message()) observer_.message_started();
    const auto [what, consumed] = x.parser.execute(x.buffer.get(), x.begin, x.end, x.body);
    x.begin += consumed;
    if (what == request_parser::event::need_more) break;
    if (what == request_parser::event::failed) {
      abort_stream(make_error_code(x.parser.failure()));
      fail(x.parser.failure());
      break;
    }
    if (what == request_parser::event::head_complete) {
      if (!on_head_complete()) break;
      continue;
    }
    if (what == request_parser::event::body_piece) {
      if (!deliver_piece()) break;
      continue;
    }
    on_message_complete();
    if (close_after_write_ || x.stream.is_stream() || pending_ || upgrade_) break;
  }
  if (!x_->output.empty()) {  // x_, not x: an aborted body may have lent x to its handler
    flush();
  } else if (close_after_write_) {
    close();
  } else if (pending_) {
    await_answer();
  } else if (body_paused_) {
    // The sink holds its piece: nothing is read until it resumes.
    phase_ = phase::awaiting;
    owner_.arm(deadline_, timeout_kind::handler, steady::now());
  } else {
    wait_for_input();
  }
}

void connection::wait_for_input() {
  if (draining_ && !in_message()) {
    close();
    return;
  }
  const steady::time_point now = steady::now();
  if (!in_message()) {
    owner_.arm(deadline_, timeout_kind::idle, now);
    // Nothing is buffered, open or queued: the exchange goes back as it is.
    // (A streamed answer's piece buffer is let go with it.)
    if (x_ && x_->chunk.capacity() > 0) std::string().swap(x_->chunk);
    give_back_exchange(/*clean=*/true);
  } else if (x_->parser.head_done()) {
    owner_.arm(deadline_, timeout_kind::body, now);
  } else if (deadline_.owner == nullptr || deadline_.owner->kind() != timeout_kind::header) {
    // The head's deadline counts from its first byte and is never extended.
    owner_.arm(deadline_, timeout_kind::header, now);
  }
  read_more();
}

void connection::on_message_complete() {
  const bool assembled = std::exchange(head_assembled_, false);
  if (std::exchange(answered_early_, false)) return;  // its answer is queued already
  if (upload_) {
    end_stream(true);
    return;
  }
  exchange& x = *x_;
  // A message with a body was assembled (and matched) at the end of its head;
  // one without a body ends with its head, and is assembled now.
  if (!assembled && !assemble_request(x, origin())) {
    fail(error::bad_target);
    return;
  }
  request_access::set_body(x.request, x.body);
  const server_options& options = owner_.options();
  if (options.compression.decode_request_bodies) {
    const std::span<header_field> fields(x.fields.data(), x.request.header_fields().size());
    if (const std::optional<stet::error> refused =
            decode_request_body(options.compression, x.request, x.body, fields)) {
      fail(*refused);
      return;
    }
  }
  begin_dispatch();
  if (x.request.method() == stet::method::connect) {
    queue_response(response::text("CONNECT is not supported\n", status::not_implemented), false, true);
    x.end_request();
    return;
  }
  observer_.dispatching(owner_, x.request);
  dispatch_outcome o = router_access::start(owner_.routes(), x.request, x.route);
  switch (o.what) {
    case dispatch_outcome::kind::body_sink: feed_whole_body(std::move(o.slot)); return;
    // process() waits for it once earlier answers are out.
    case dispatch_outcome::kind::pending: pending_ = std::move(o.slot); return;
    case dispatch_outcome::kind::answer:
    case dispatch_outcome::kind::upgrade: answer(std::move(o), x.request); return;
  }
}

void connection::begin_dispatch() {
  exchange& x = *x_;
  const std::uint64_t most = owner_.options().max_requests_per_connection;
  ++served_;
  keep_alive_ = x.parser.keep_alive() && !draining_ && !x.parser.is_upgrade() && (most == 0 || served_ < most);
  request_access::set_version(x.request, x.parser.version(), keep_alive_);
}

void connection::answer(dispatch_outcome&& o, request& req) {
  response& r = o.answer;
  observer_.handled(owner_, req, r);
  const bool omit_content_length = compress_answer(owner_.options().compression, req, r);
  observer_.answered(owner_, &req, r, peer_, stream_->tls());
  if (o.what == dispatch_outcome::kind::upgrade) {
    upgrade_ = std::move(o.upgrade);
    ws::append_switching_head(x_->output.text(), *upgrade_, r.header_block());
  } else {
    const bool close = !keep_alive_ || draining_ || r.closes_connection();
    queue_response(std::move(r), req.method() == stet::method::head, close, omit_content_length);
  }
  if (!pending_) x_->end_request();  // a handler that timed out may still read the request
}

// Nothing is read meanwhile: the request's head lies in the read buffer. But
// the socket is watched, so that a client that leaves cancels the handler
// (a coroutine's task is destroyed; a responder sees abandoned()).
void connection::await_answer() {
  phase_ = phase::awaiting;
  owner_.arm(deadline_, timeout_kind::handler, steady::now());
  if (!pending_->on_ready(&connection::wake, shared_from_this())) {
    on_answer();
    return;
  }
  watching_peer_ = true;
  stream_->watch_peer({this, &connection::peer_stirred, nullptr}, shared_from_this());
}

// Runs on the answering thread (a coroutine's is ours): the post brings us
// back to our own. The loop is kept alive meanwhile by what the connection
// is on: the worker's guard, or its drain deadline while it stops.
void connection::wake(std::shared_ptr<void> self) noexcept {
  auto c = std::static_pointer_cast<connection>(std::move(self));
  asio::io_context& io = c->owner_.io();
  asio::post(io, [c = std::move(c)] { c->on_answer(); });
}

// Bytes (a pipelined request) say nothing more until the answer is out; an
// end of stream or an error means nobody is left to answer.
void connection::peer_stirred(void* self, const boost::system::error_code& ec, std::size_t /*bytes*/) {
  connection& c = *static_cast<connection*>(self);
  if (ec == asio::error::operation_aborted || c.phase_ != phase::awaiting) return;
  c.watching_peer_ = false;
  if (ec) c.close();
}

void connection::on_answer() {
  if (phase_ != phase::awaiting) return;  // timed out or closed meanwhile
  if (std::exchange(watching_peer_, false)) stream_->cancel();
  const std::shared_ptr<pending_response> pending = std::move(pending_);
  phase_ = phase::reading;
  answer(finish_pending(*pending, x_->request), x_->request);
  process();  // writes it, then goes on with pipelined requests
}

// The answer will not be waited for: a 503 goes out instead. The handler may
// still be reading the request, so pending_ stays set (close() hands the
// connection to the answer slot) and the exchange holding the request is
// lent to it; the 503 and the lingering close use a fresh one.
void connection::abandon_answer() {
  const std::shared_ptr<connection> self = shared_from_this();  // abandon() drops the waker's reference
  if (std::exchange(watching_peer_, false)) stream_->cancel();
  pending_->abandon();
  lent_ = std::move(x_);
  response late = error_page(status::service_unavailable, lent_->request);
  take_exchange();
  close_after_write_ = true;
  answer(std::move(late.close_connection()), lent_->request);
  flush();
}

void connection::fail(stet::error e) {
  take_exchange();
  response r = detail::error_page(e);
  observer_.answered(owner_, nullptr, r, peer_, stream_->tls());
  queue_response(std::move(r), false, true);
}

}  // namespace stet::detail
