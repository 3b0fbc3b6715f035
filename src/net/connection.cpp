#include "net/connection.hpp"

#include "http/response_writer.hpp"
#include "http/token.hpp"
#include "metrics/phase_record.hpp"
#include "net/answer_compression.hpp"
#include "net/websocket_connection.hpp"
#include "net/worker.hpp"
#include "request/request_access.hpp"
#include "request/request_target.hpp"
#include "response/compress/response_compression.hpp"
#include "response/error_pages.hpp"
#include "response/response_access.hpp"
#include "route/params_access.hpp"
#include "route/router_access.hpp"
#include "websocket/upgrade.hpp"

#include <stet/tls.hpp>

#include <cstdio>
#include <cstring>
#include <utility>

namespace stet::detail {
namespace {

constexpr std::size_t min_read_bytes = 2 * 1024;
constexpr std::size_t stream_chunk_bytes = 64 * 1024;

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
  if (owner_.timing()) read_time_ = steady::now();
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
  const std::size_t start = x.parser.message_start();
  if (start > 0) {
    std::memmove(x.buffer.get(), x.buffer.get() + start, x.end - start);
    x.parser.rebase(start);
    x.begin -= start;
    x.end -= start;
  }
  const std::size_t max_capacity = owner_.options().max_header_bytes + exchange::initial_buffer_bytes;
  if (x.capacity - x.end < min_read_bytes && x.capacity < max_capacity) {
    const std::size_t grown = std::min(x.capacity * 2, max_capacity);
    std::unique_ptr<char[]> bigger(new char[grown]);
    std::memcpy(bigger.get(), x.buffer.get(), x.end);
    x.buffer = std::move(bigger);
    x.capacity = grown;
  }
}

// Parses and answers every complete request already buffered, then writes all
// their responses at once (pipelined responses share one write).
void connection::process() {
  exchange& x = *x_;
  // After a body piece the parser runs once more even with nothing buffered:
  // the piece may have been the body's last bytes.
  while ((x.begin < x.end || std::exchange(settle_body_, false)) && !x.stream.is_stream() && !pending_ &&
         !body_paused_ && !upgrade_ && x.output.pending() < owner_.options().max_pipeline_output_bytes) {
    if (!x.parser.in_message()) message_start_time_ = read_time_;
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
  if (std::exchange(answered_early_, false)) return;  // its answer is queued already
  if (upload_) {
    end_stream(true);
    return;
  }
  ++served_;
  exchange& x = *x_;
  // Always from the head as it lies now: make_room() may have moved the buffer
  // since a 100-continue decision looked at it.
  if (!prepare_request()) {
    fail(error::bad_target);
    return;
  }
  request_access::set_body(x.request, x.body);

  const server_options& options = owner_.options();
  if (options.compression.decode_request_bodies) {
    if (const std::optional<stet::error> refused = decode_request_body(options.compression, x)) {
      fail(*refused);
      return;
    }
  }
  const bool keep_alive = x.parser.keep_alive() && !draining_ && !x.parser.is_upgrade() &&
                          (options.max_requests_per_connection == 0 || served_ < options.max_requests_per_connection);
  request_access::set_version(x.request, x.parser.version(), keep_alive);
  keep_alive_ = keep_alive;

  if (x.request.method() == stet::method::connect) {
    queue_response(response::text("CONNECT is not supported\n", status::not_implemented), false, true);
    release_request();
    return;
  }
  if (owner_.timing()) {
    handler_start_ = steady::now();
    record_phase(stet::phase::parse, message_start_time_, handler_start_, &x.request);
  }
  response r = router_access::start(owner_.routes(), x.request);
  if (const pending_response* p = response_access::pending(r)) {
    if (p->body) {
      feed_whole_body(response_access::take_pending(r));  // a sink on a body that is already whole
    } else {
      pending_ = response_access::take_pending(r);  // process() waits for it once earlier answers are out
    }
    return;
  }
  answer(std::move(r), x.request);
}

// Queues the handler's answer to `req`, then lets the request go.
void connection::answer(response&& r, request& req) {
  if (owner_.timing()) {
    const steady::time_point handled = steady::now();
    record_phase(stet::phase::handle, handler_start_, handled, &req);
    if (owner_.options().metrics) record_route(req, r.status(), handled - handler_start_);
    if (owner_.options().server_timing) {
      const std::chrono::duration<double, std::milli> parse_ms = handler_start_ - message_start_time_;
      const std::chrono::duration<double, std::milli> handler_ms = handled - handler_start_;
      char value[96];
      const int n =
          std::snprintf(value, sizeof value, "parse;dur=%.3f, handler;dur=%.3f", parse_ms.count(), handler_ms.count());
      r.set_header("Server-Timing", std::string_view(value, static_cast<std::size_t>(n)));
    }
  }
  const compression_settings& compression = owner_.options().compression;
  const answer_coding coded = may_compress(r, compression) ? compress_answer(compression, req, r) : answer_coding{};
  worker_counters::bump(owner_.counters().requests_by_status[to_int(r.status()) % 600]);
  const bool close = !keep_alive_ || draining_ || r.closes_connection();
  if (owner_.logging()) {
    const bool sends_body = req.method() != stet::method::head && !status_forbids_body(r.status());
    log_exchange(&req, to_int(r.status()), sends_body ? r.content_length() : 0);
  }
  if (response_access::upgrades(r) && r.status() == status::switching_protocols) {
    upgrade_ = response_access::take_upgrade(r);
    ws::append_switching_head(x_->output.text(), *upgrade_, r.header_block());
  } else {
    queue_response(std::move(r), req.method() == stet::method::head, close, coded.omit_content_length);
  }
  release_request();
}

void connection::release_request() noexcept {
  if (!pending_) x_->end_request();  // a handler that timed out may still read it
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

// Fills the request from the parsed head: views into the read buffer, the
// decoded path in the arena.
bool connection::prepare_request() {
  exchange& x = *x_;
  request& req = x.request;
  request_access::begin_request(req);
  request_access::set_remote(req, peer_);
  request_access::set_origin(req, owner_.trust(), scheme());
  request_access::set_tls(req, stream_->tls());
  const char* base = x.buffer.get() + x.parser.message_start();
  const auto view = [base](span s) { return std::string_view(base + s.offset, s.length); };

  const std::span<const field_span> spans = x.parser.fields();
  for (std::size_t i = 0; i < spans.size(); ++i) {
    x.fields[i] = header_field{view(spans[i].name), trim_ows(view(spans[i].value))};
  }
  request_access::set_fields(req, std::span<const header_field>(x.fields.data(), spans.size()));
  request_access::set_method(req, x.parser.method(), x.parser.method_name());
  request_access::set_version(req, x.parser.version(), x.parser.keep_alive());
  if (!fill_target(req, x.parser.method(), view(x.parser.target()), x.arena)) return false;
  // The parser found Host while it checked the head: no second search by name.
  if (request_access::raw_host(req).empty() && x.parser.host_field() != request_parser::no_field) {
    request_access::set_host(req, x.fields[x.parser.host_field()].value);
  }
  return true;
}

void connection::queue_response(response&& r, bool head_request, bool close, bool no_content_length) {
  if (r.is_stream() && !status_forbids_body(r.status())) {
    queue_stream(std::move(r), head_request, close);
    return;
  }
  output_queue& out = x_->output;
  const framing how{head_request, close, x_->parser.version() == 10 && !close, false, no_content_length};
  if (response_writer::sends_body(r, how) &&
      (r.file() != nullptr || r.body().size() > output_queue::attach_threshold)) {
    owner_.writer().append_head(out.text(), r, how);
    out.attach(std::move(r));
  } else {
    owner_.writer().append(out.text(), r, how);
  }
  if (close) close_after_write_ = true;
}

// A streamed body follows its head once the head is written; parsing waits
// until the stream ends so that later pipelined answers stay in order.
void connection::queue_stream(response&& r, bool head_request, bool close) {
  stream_chunked_ = x_->parser.version() != 10;  // HTTP/1.0 has no chunked: the body ends at close
  if (!stream_chunked_ && !head_request) close = true;
  const framing how{head_request, close, !stream_chunked_ && !close, stream_chunked_};
  owner_.writer().append_head(x_->output.text(), r, how);
  if (!head_request) x_->stream = std::move(r);  // HEAD never runs the producer
  if (close) close_after_write_ = true;
}

void connection::fail(stet::error e) {
  take_exchange();
  response r = detail::error_page(e);
  const unsigned code = to_int(r.status());
  if (owner_.logging()) log_exchange(nullptr, code, r.content_length());
  worker_counters::bump(owner_.counters().requests_by_status[code]);
  queue_response(std::move(r), false, true);
}

// `req` is null for a request that could not be parsed.
void connection::log_exchange(const request* req, unsigned status, std::uint64_t bytes) {
  access_record r;
  if (req != nullptr && request_access::trusts_proxies(*req)) {
    r.remote = req->client_address_text();
  } else {
    if (peer_text_.empty()) peer_text_ = peer_.address_string();
    r.remote = peer_text_;
  }
  r.method = req != nullptr ? req->method_name() : "-";
  r.target = req != nullptr ? req->target() : "-";
  r.version = req != nullptr ? req->version() : 11;
  r.status = status;
  r.bytes = bytes;
  if (req != nullptr) {
    r.referer = req->header("referer").value_or("");
    r.user_agent = req->header("user-agent").value_or("");
  }
  if (const stet::tls_info* tls = stream_->tls()) {
    r.tls_protocol = tls->protocol;
    r.tls_cipher = tls->cipher;
  }
  owner_.log_access(r);
}

// Per-route counters: the route the router matched (none for its automatic
// answers, which only the totals count). The chunk holding a route's counters
// is allocated the first time that route answers on this worker.
void connection::record_route(const request& req, stet::status s, steady::duration handler_time) {
  const std::uint32_t id = route_params_access::route_id(req.params());
  if (id == route_params_access::no_route) return;
  route_counters* c = owner_.counters().per_route.at(id);
  if (c == nullptr) return;
  const unsigned status_class = to_int(s) / 100;
  if (status_class >= 1 && status_class <= 5) worker_counters::bump(c->by_class[status_class - 1]);
  c->handler.record(handler_time);
}

void connection::record_phase(stet::phase p, steady::time_point start, steady::time_point end,
                              const request* r) noexcept {
  detail::record_phase(owner_.counters(), owner_.tracer(), p, start, end, r);
}

void connection::flush() {
  if (owner_.timing()) write_start_ = steady::now();
  writing_piece_ = false;
  write_next();
}

// Heads and memory bodies go out from the worker thread in one gather write,
// file bodies by write_file; only what the stream does not take at once waits
// for writability. Not asio::async_write: it caps each system call at 64 KiB
// (an 83 KB stylesheet took two) and posts its completion, which costs the
// event loop a second, non-blocking epoll_wait.
void connection::write_next() {
  phase_ = phase::writing;
  switch (x_->output.write(*stream_)) {
    case output_queue::progress::done: on_written(); return;
    case output_queue::progress::blocked:
      // The write deadline counts from the last progress, so it is armed at each wait.
      owner_.arm(deadline_, timeout_kind::write, steady::now());
      stream_->wait_writable({this, &connection::writable, nullptr}, shared_from_this());
      return;
    case output_queue::progress::failed: close(); return;
  }
}

void connection::writable(void* self, const boost::system::error_code& ec, std::size_t /*bytes*/) {
  connection& c = *static_cast<connection*>(self);
  if (c.phase_ != phase::writing) return;
  if (ec) {
    c.close();
  } else {
    c.write_next();
  }
}

void connection::on_written() {
  if (owner_.timing() && !writing_piece_) record_phase(stet::phase::write, write_start_, steady::now(), nullptr);
  answered_ = true;
  x_->output.clear();
  if (x_->stream.is_stream()) {
    pump_stream();
    return;
  }
  after_write();
}

// The next piece of a streamed body, asked for only once the previous one is
// written: a slow client slows the producer, a departed one stops it.
void connection::pump_stream() {
  exchange& x = *x_;
  x.chunk.clear();
  bool more = false;
  try {
    stream_writer writer(x.chunk, stream_chunk_bytes);
    more = x.stream.producer()(writer);
  } catch (const std::exception& e) {
    owner_.report_error("stream producer", {}, e.what());
    close();
    return;
  } catch (...) {
    owner_.report_error("stream producer", {}, "an exception not derived from std::exception");
    close();
    return;
  }
  std::string& text = x.output.text();
  if (!x.chunk.empty()) {
    if (stream_chunked_) response_writer::begin_chunk(text, x.chunk.size());
    x.output.attach_view(x.chunk);
    if (stream_chunked_) response_writer::end_chunk(text);
  }
  if (!more) {
    if (stream_chunked_) response_writer::last_chunk(text);
    x.stream = response();
  }
  if (x.output.empty()) {
    if (!more) {
      after_write();
      return;
    }
    // The producer had nothing yet: let the other connections run before asking again.
    asio::post(owner_.io(), [self = shared_from_this()] {
      if (self->phase_ == phase::writing) self->pump_stream();
    });
    return;
  }
  writing_piece_ = true;
  write_next();
}

void connection::after_write() {
  if (upgrade_) {
    hand_over();
    return;
  }
  if (close_after_write_) {
    linger();
    return;
  }
  phase_ = phase::reading;
  process();  // requests pipelined behind the ones just answered
}

// The 101 is out: the transport, and the bytes already read past the
// upgrade request's head, go to a WebSocket session on this worker; this
// connection is done (its worker counts it open until the session ends).
void connection::hand_over() {
  const std::shared_ptr<connection> self = shared_from_this();
  const std::shared_ptr<websocket_upgrade> up = std::move(upgrade_);
  phase_ = phase::closed;
  worker::disarm(deadline_);
  owner_.handed_over(*this);
  exchange& x = *x_;
  read_ahead ahead;
  if (x.begin < x.end) {
    // The bytes travel in their buffer; the exchange, left without one, is
    // freed rather than kept by the pool.
    ahead = {std::move(x.buffer), x.capacity, x.begin, x.end};
    x.capacity = 0;
  }
  start_websocket(owner_, std::move(stream_), peer_, *up, std::move(ahead));
  give_back_exchange();
}

// Closing with unread input makes the kernel send RST, which can destroy the
// response before the client reads it. So: FIN first, then read and discard
// until the client closes or linger_timeout passes (nginx's lingering close).
// Nothing more is parsed or written: the exchange goes back now.
void connection::linger() {
  phase_ = phase::lingering;
  stream_->shutdown_send();
  owner_.arm(deadline_, timeout_kind::linger, steady::now());
  give_back_exchange();
  stream_->start_read({this, &connection::discarded, &connection::discard_buffer}, false, shared_from_this());
}

std::span<char> connection::discard_buffer(void* self, bool /*speculative*/) noexcept {
  return static_cast<connection*>(self)->owner_.discard_buffer();
}

void connection::discarded(void* self, const boost::system::error_code& ec, std::size_t /*n*/) {
  connection& c = *static_cast<connection*>(self);
  if (c.phase_ != phase::lingering) return;
  if (ec) {
    c.close();
    return;
  }
  c.stream_->start_read({&c, &connection::discarded, &connection::discard_buffer}, false, c.shared_from_this());
}

}  // namespace stet::detail
