#include "net/connection.hpp"

#include "response/error_pages.hpp"
#include "http/percent.hpp"
#include "request/request_access.hpp"
#include "http/response_writer.hpp"
#include "http/token.hpp"
#include "metrics/phase_record.hpp"
#include "net/worker.hpp"
#include "route/params_access.hpp"
#include "route/router_access.hpp"

#include <sys/sendfile.h>

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <utility>

namespace stet::detail {
namespace {

constexpr std::size_t initial_buffer_bytes = 8 * 1024;
constexpr std::size_t min_read_bytes = 2 * 1024;
constexpr std::size_t arena_bytes = 4 * 1024;
// Bodies above this are not copied into the output buffer but gathered from
// their response by the same writev.
constexpr std::size_t attach_threshold = 16 * 1024;
// Buffers that grew for one large request are given back rather than kept per idle connection.
constexpr std::size_t retained_output_bytes = 256 * 1024;
constexpr std::size_t retained_body_bytes = 64 * 1024;
constexpr std::size_t stream_chunk_bytes = 64 * 1024;

bool starts_with_icase(std::string_view s, std::string_view prefix) noexcept {
  return s.size() >= prefix.size() && iequals(s.substr(0, prefix.size()), prefix);
}

}  // namespace

connection::connection(worker& owner, tcp::socket socket, const tcp::endpoint& peer)
    : owner_(owner),
      socket_(std::in_place, std::move(socket)),
      peer_(peer),
      buffer_(new char[initial_buffer_bytes]),
      capacity_(initial_buffer_bytes),
      parser_(parser_limits::from(owner.options())),
      arena_storage_(new std::byte[arena_bytes]),
      arena_(arena_storage_.get(), arena_bytes),
      fields_(owner.options().max_header_count) {
  deadline_.target = this;
  request_access::set_arena(request_, arena_);
}

connection::~connection() { worker::disarm(deadline_); }

void connection::start() {
  boost::system::error_code ignored;
  // Every write is tried from the worker thread first (sendfile included), and
  // a full socket must make it give way, not wait: so the descriptor is
  // non-blocking, and so is Asio's view of it (its synchronous write_some would
  // otherwise poll until there is room).
  socket_->non_blocking(true, ignored);
  owner_.arm(deadline_, timeout_kind::header, steady::now());
  read_more();
}

void connection::drain() {
  draining_ = true;
  if (phase_ != phase::reading || parser_.in_message() || begin_ != end_) return;
  // Idle as far as we know, but bytes the kernel already holds are a request
  // the client sent before it could learn of the stop. Closing now would reset
  // it unanswered; read it instead and answer it with Connection: close.
  boost::system::error_code ec;
  if (socket_->available(ec) > 0 && !ec) return;
  close();
}

void connection::close() noexcept {
  if (phase_ == phase::closed) return;
  phase_ = phase::closed;
  worker::disarm(deadline_);
  boost::system::error_code ignored;
  socket_->close(ignored);
  owner_.closed(*this);
  if (!pending_) return;
  // A handler still holds the request, so this connection (where the request
  // lives) must outlive its responder, possibly the io_context too: the socket
  // goes now, and the rest is handed to the answer slot. That hand-over is the
  // last use of `this` here: the handler's thread may free it right after.
  std::shared_ptr<connection> self = shared_from_this();
  const std::shared_ptr<pending_response> pending = std::move(pending_);
  socket_.reset();
  pending->abandon();
  pending->keep_until_settled(std::move(self));
}

void connection::on_timeout(timeout_kind kind) {
  if (phase_ == phase::closed) return;
  if (kind == timeout_kind::handler) {
    const std::shared_ptr<connection> self = shared_from_this();  // abandon() drops the waker's reference
    abandon_answer();
    response late = error_page(status::service_unavailable, request_);
    answer(std::move(late.close_connection()));
    flush();
    return;
  }
  const bool partial_request = parser_.in_message() || begin_ < end_;
  if ((kind == timeout_kind::header && partial_request) || kind == timeout_kind::body) {
    // A request was started and stalled: say so (408) before closing.
    boost::system::error_code ignored;
    socket_->cancel(ignored);
    fail(kind == timeout_kind::header ? error::header_timeout : error::body_timeout);
    flush();
    return;
  }
  close();
}

// Keeps only what the open message still needs (its head), so the buffer never
// grows with the body or with pipelined requests already answered.
void connection::make_room() {
  if (!parser_.in_message()) {
    begin_ = end_ = 0;
    return;
  }
  if (parser_.head_done()) begin_ = end_ = parser_.head_end();
  if (capacity_ - end_ >= min_read_bytes) return;
  const std::size_t start = parser_.message_start();
  if (start > 0) {
    std::memmove(buffer_.get(), buffer_.get() + start, end_ - start);
    parser_.rebase(start);
    begin_ -= start;
    end_ -= start;
  }
  const std::size_t max_capacity = owner_.options().max_header_bytes + initial_buffer_bytes;
  if (capacity_ - end_ < min_read_bytes && capacity_ < max_capacity) {
    const std::size_t grown = std::min(capacity_ * 2, max_capacity);
    std::unique_ptr<char[]> bigger(new char[grown]);
    std::memcpy(bigger.get(), buffer_.get(), end_);
    buffer_ = std::move(bigger);
    capacity_ = grown;
  }
}

void connection::read_more() {
  make_room();
  phase_ = phase::reading;
  read_.start(
      *socket_, buffer_.get() + end_, capacity_ - end_, std::exchange(answered_, false),
      [](void* self, const boost::system::error_code& ec, std::size_t n) {
        static_cast<connection*>(self)->on_read(ec, n);
      },
      this, shared_from_this());
}

void connection::on_read(const boost::system::error_code& ec, std::size_t n) {
  if (phase_ != phase::reading) return;  // a timeout answered meanwhile, or closed
  if (ec) {
    close();  // EOF or reset: whatever was half-received has no one to answer to
    return;
  }
  end_ += n;
  if (owner_.timing()) read_time_ = steady::now();
  process();
}

// Parses and answers every complete request already buffered, then writes all
// their responses at once (pipelined responses share one write).
void connection::process() {
  while (begin_ < end_ && !stream_.is_stream() && !pending_ &&
         pending_output() < owner_.options().max_pipeline_output_bytes) {
    if (!parser_.in_message()) message_start_time_ = read_time_;
    const auto [what, consumed] = parser_.execute(buffer_.get(), begin_, end_, body_);
    begin_ += consumed;
    if (what == request_parser::event::need_more) break;
    if (what == request_parser::event::failed) {
      fail(parser_.failure());
      break;
    }
    if (what == request_parser::event::head_complete) {
      if (!on_head_complete()) break;
      continue;
    }
    on_message_complete();
    if (close_after_write_ || stream_.is_stream() || pending_) break;
  }
  if (!out_.empty()) {
    flush();
  } else if (close_after_write_) {
    close();
  } else if (pending_) {
    await_answer();
  } else {
    wait_for_input();
  }
}

void connection::wait_for_input() {
  if (draining_ && !parser_.in_message()) {
    close();
    return;
  }
  const steady::time_point now = steady::now();
  if (!parser_.in_message()) {
    owner_.arm(deadline_, timeout_kind::idle, now);
  } else if (parser_.head_done()) {
    owner_.arm(deadline_, timeout_kind::body, now);
  } else if (deadline_.owner == nullptr || deadline_.owner->kind() != timeout_kind::header) {
    // The head's deadline counts from its first byte and is never extended.
    owner_.arm(deadline_, timeout_kind::header, now);
  }
  read_more();
}

// Only 100-continue needs a decision before the body: send 100 only when the
// body will be read, otherwise answer now and close without reading it.
bool connection::on_head_complete() {
  if (!parser_.expects_continue() || begin_ < end_) return true;
  if (!prepare_request()) {
    fail(error::bad_target);
    return false;
  }
  const router::match found = owner_.routes().find(request_);
  if (!found.routed()) {
    queue_response(owner_.routes().handle(request_), request_.method() == stet::method::head, true);
    return false;
  }
  out_ += response_writer::continue_line();
  return true;
}

void connection::on_message_complete() {
  ++served_;
  // Always from the head as it lies now: make_room() may have moved the buffer
  // since a 100-continue decision looked at it.
  if (!prepare_request()) {
    fail(error::bad_target);
    return;
  }
  request_access::set_body(request_, body_);

  const server_options& options = owner_.options();
  const bool keep_alive = parser_.keep_alive() && !draining_ && !parser_.is_upgrade() &&
                          (options.max_requests_per_connection == 0 || served_ < options.max_requests_per_connection);
  request_access::set_version(request_, parser_.version(), keep_alive);
  keep_alive_ = keep_alive;

  if (request_.method() == stet::method::connect) {
    queue_response(response::text("CONNECT is not supported\n", status::not_implemented), false, true);
    release_request();
    return;
  }
  const bool timing = owner_.timing();
  if (timing) {
    handler_start_ = steady::now();
    record_phase(stet::phase::parse, message_start_time_, handler_start_, &request_);
  }
  response r = router_access::start(owner_.routes(), request_);
  if (response_access::pending(r) != nullptr) {
    pending_ = response_access::take_pending(r);  // process() waits for it once earlier answers are out
    return;
  }
  answer(std::move(r));
}

// Queues the handler's answer to the current request, then lets the request go.
void connection::answer(response&& r) {
  if (owner_.timing()) {
    const steady::time_point handled = steady::now();
    record_phase(stet::phase::handle, handler_start_, handled, &request_);
    if (owner_.options().metrics) record_route(r.status(), handled - handler_start_);
    if (owner_.options().server_timing) {
      const std::chrono::duration<double, std::milli> parse_ms = handler_start_ - message_start_time_;
      const std::chrono::duration<double, std::milli> handler_ms = handled - handler_start_;
      char value[96];
      const int n =
          std::snprintf(value, sizeof value, "parse;dur=%.3f, handler;dur=%.3f", parse_ms.count(), handler_ms.count());
      r.set_header("Server-Timing", std::string_view(value, static_cast<std::size_t>(n)));
    }
  }
  worker_counters::bump(owner_.counters().requests_by_status[to_int(r.status()) % 600]);
  const bool close = !keep_alive_ || draining_ || r.closes_connection();
  if (owner_.logging()) {
    const bool sends_body = request_.method() != stet::method::head && !status_forbids_body(r.status());
    log_exchange(to_int(r.status()), sends_body ? r.content_length() : 0, true);
  }
  queue_response(std::move(r), request_.method() == stet::method::head, close);
  release_request();
}

void connection::release_request() {
  if (pending_) return;  // a handler that timed out may still read it
  arena_.release();
  if (body_.capacity() > retained_body_bytes) std::string().swap(body_);
}

// Nothing is read meanwhile: the request's head lies in the read buffer.
void connection::await_answer() {
  phase_ = phase::awaiting;
  owner_.arm(deadline_, timeout_kind::handler, steady::now());
  // Runs on the sending thread. The work guard keeps the worker's loop alive
  // while nothing else is pending on it; the post brings us back to our thread.
  auto wake = [self = shared_from_this(), guard = asio::make_work_guard(owner_.io())] {
    asio::post(guard.get_executor(), [self] { self->on_answer(); });
  };
  if (!pending_->on_ready(std::move(wake))) on_answer();
}

void connection::on_answer() {
  if (phase_ != phase::awaiting) return;  // timed out or closed meanwhile
  const std::shared_ptr<pending_response> pending = std::move(pending_);
  phase_ = phase::reading;
  answer(finish_pending(*pending, request_));
  process();  // writes it, then goes on with pipelined requests
}

// The answer will not be waited for (the 503 goes out instead). The handler may
// still be reading the request, so pending_ stays set: nothing releases the
// request, nothing more is parsed, and close() hands the connection to the
// answer slot. The read buffer is set aside so that lingering reads do not
// overwrite the head.
void connection::abandon_answer() {
  pending_->abandon();
  lent_buffer_ = std::move(buffer_);
  buffer_.reset(new char[min_read_bytes]);
  capacity_ = min_read_bytes;
  begin_ = end_ = 0;
  close_after_write_ = true;
}

// Fills request_ from the parsed head: views into buffer_, decoded path in the arena.
bool connection::prepare_request() {
  request_access::begin_request(request_);
  const char* base = buffer_.get() + parser_.message_start();
  const auto view = [base](span s) { return std::string_view(base + s.offset, s.length); };

  const std::span<const field_span> spans = parser_.fields();
  for (std::size_t i = 0; i < spans.size(); ++i) {
    fields_[i] = header_field{view(spans[i].name), trim_ows(view(spans[i].value))};
  }
  request_access::set_fields(request_, std::span<const header_field>(fields_.data(), spans.size()));
  request_access::set_method(request_, parser_.method(), parser_.method_name());
  request_access::set_version(request_, parser_.version(), parser_.keep_alive());

  const std::string_view target = view(parser_.target());
  std::string_view rest = target;
  std::string_view authority;
  if (parser_.method() == stet::method::connect) {
    authority = target;
    rest = "/";
  } else if (target == "*" && parser_.method() == stet::method::options) {
    rest = "*";
  } else if (starts_with_icase(target, "http://") || starts_with_icase(target, "https://")) {
    // Absolute-form: the target's authority replaces Host (RFC 9112 3.2.2).
    rest = target.substr(target.find("://") + 3);
    const std::size_t path_at = std::min(rest.find('/'), rest.find('?'));
    authority = rest.substr(0, path_at);
    rest = path_at == std::string_view::npos ? std::string_view("/") : rest.substr(path_at);
    if (authority.empty()) return false;
  } else if (target.empty() || target.front() != '/') {
    return false;
  }
  rest = rest.substr(0, rest.find('#'));
  const std::size_t question = rest.find('?');
  std::string_view raw_path = rest.substr(0, question);
  const std::string_view query = question == std::string_view::npos ? std::string_view() : rest.substr(question + 1);
  if (raw_path.empty()) raw_path = "/";

  const std::optional<std::string_view> path = percent_decode_path(raw_path, arena_);
  if (!path) return false;
  request_access::set_target(request_, target, raw_path, *path, query);
  request_access::set_host(request_, authority.empty() ? request_.header("host").value_or("") : authority);
  return true;
}

void connection::queue_response(response&& r, bool head_request, bool close) {
  response_writer& writer = owner_.writer();
  if (r.is_stream() && !status_forbids_body(r.status())) {
    queue_stream(std::move(r), head_request, close);
    return;
  }
  const framing how{head_request, close, parser_.version() == 10 && !close, false};
  if (response_writer::sends_body(r, how) && (r.file() != nullptr || r.body().size() > attach_threshold)) {
    writer.append_head(out_, r, how);
    attached_bytes_ += r.file() != nullptr ? attach_threshold : r.body().size();
    attached_.push_back(attached_body{out_.size(), std::move(r)});
  } else {
    writer.append(out_, r, how);
  }
  if (close) close_after_write_ = true;
}

// A streamed body follows its head once the head is written; parsing waits
// until the stream ends so that later pipelined answers stay in order.
void connection::queue_stream(response&& r, bool head_request, bool close) {
  stream_chunked_ = parser_.version() != 10;  // HTTP/1.0 has no chunked: the body ends at close
  if (!stream_chunked_ && !head_request) close = true;
  const framing how{head_request, close, !stream_chunked_ && !close, stream_chunked_};
  owner_.writer().append_head(out_, r, how);
  if (!head_request) stream_ = std::move(r);  // HEAD never runs the producer
  if (close) close_after_write_ = true;
}

void connection::pump_stream() {
  chunk_.clear();
  bool more = false;
  try {
    stream_writer writer(chunk_, stream_chunk_bytes);
    more = stream_.producer()(writer);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "stet: stream producer threw: %s\n", e.what());
    close();
    return;
  }
  gather_.clear();
  if (!chunk_.empty()) {
    if (stream_chunked_) {
      const auto [end, ec] = std::to_chars(chunk_size_line_.data(), chunk_size_line_.data() + 16, chunk_.size(), 16);
      end[0] = '\r';
      end[1] = '\n';
      gather_.emplace_back(chunk_size_line_.data(), static_cast<std::size_t>(end + 2 - chunk_size_line_.data()));
      gather_.emplace_back(chunk_.data(), chunk_.size());
      gather_.emplace_back("\r\n", 2);
    } else {
      gather_.emplace_back(chunk_.data(), chunk_.size());
    }
  }
  if (!more && stream_chunked_) gather_.emplace_back("0\r\n\r\n", 5);
  if (gather_.empty()) {
    // The producer had nothing yet: let the other connections run before asking again.
    asio::post(socket_->get_executor(), [self = shared_from_this(), more] {
      if (self->phase_ != phase::writing) return;
      more ? self->pump_stream() : self->end_stream();
    });
    return;
  }
  owner_.arm(deadline_, timeout_kind::write, steady::now());
  asio::async_write(*socket_, gather_,
                    [self = shared_from_this(), more](const boost::system::error_code& ec, std::size_t) {
                      if (self->phase_ != phase::writing) return;
                      if (ec) {
                        self->close();
                      } else if (more) {
                        self->pump_stream();
                      } else {
                        self->end_stream();
                      }
                    });
}

void connection::end_stream() {
  stream_ = response();
  std::string().swap(chunk_);  // a finished stream does not pin its 64 KiB
  after_write();
}

void connection::fail(stet::error e) {
  response r = detail::error_page(e);
  const unsigned code = to_int(r.status());
  if (owner_.logging()) log_exchange(code, r.content_length(), false);
  worker_counters::bump(owner_.counters().requests_by_status[code]);
  queue_response(std::move(r), false, true);
}

void connection::log_exchange(unsigned status, std::uint64_t bytes, bool parsed) {
  if (peer_text_.empty()) peer_text_ = peer_.address().to_string();
  access_record r;
  r.remote = peer_text_;
  r.method = parsed ? request_.method_name() : "-";
  r.target = parsed ? request_.target() : "-";
  r.version = parsed ? request_.version() : 11;
  r.status = status;
  r.bytes = bytes;
  if (parsed) {
    r.referer = request_.header("referer").value_or("");
    r.user_agent = request_.header("user-agent").value_or("");
  }
  owner_.log_access(r);
}

std::size_t connection::pending_output() const noexcept { return out_.size() + attached_bytes_; }

// Per-route counters: the route the router matched (none for its automatic
// answers, which only the totals count). The chunk holding a route's counters
// is allocated the first time that route answers on this worker.
void connection::record_route(stet::status s, steady::duration handler_time) {
  const std::uint32_t id = route_params_access::route_id(request_.params());
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
  phase_ = phase::writing;
  out_sent_ = 0;
  next_attached_ = 0;
  file_sent_ = 0;
  write_next();
}

// Writes out_ and the attached bodies in order: memory pieces in one gather
// write up to the next file body, which goes out by sendfile; then the rest.
void connection::write_next() {
  if (next_attached_ < attached_.size() && out_sent_ == attached_[next_attached_].offset &&
      attached_[next_attached_].owner.file() != nullptr) {
    send_file();
    return;
  }
  gather_.clear();
  const auto gather = [this](const char* data, std::size_t size) {
    if (size > 0) gather_.emplace_back(data, size);
  };
  std::size_t from = out_sent_;
  while (next_attached_ < attached_.size()) {
    const attached_body& a = attached_[next_attached_];
    gather(out_.data() + from, a.offset - from);
    from = a.offset;
    if (a.owner.file() != nullptr) break;
    gather(a.owner.body().data(), a.owner.body().size());
    ++next_attached_;
  }
  if (next_attached_ == attached_.size()) {
    gather(out_.data() + from, out_.size() - from);
    from = out_.size();
  }
  out_sent_ = from;
  send_gather();
}

// Sends gather_ from the worker thread until it is all out or the socket is
// full. Not asio::async_write: that caps each system call at 64 KiB (an 83 KB
// stylesheet took two sendmsg) and posts its completion, and a posted
// completion costs the event loop a second, non-blocking epoll_wait.
void connection::send_gather() {
  while (!gather_.empty()) {
    boost::system::error_code ec;
    // One piece goes by send(), several by sendmsg().
    const std::size_t sent =
        gather_.size() == 1 ? socket_->write_some(gather_.front(), ec) : socket_->write_some(gather_, ec);
    if (ec == asio::error::would_block || ec == asio::error::try_again || (!ec && sent == 0)) {
      wait_writable(&connection::send_gather);
      return;
    }
    if (ec) {
      close();
      return;
    }
    drop_sent(sent);
  }
  if (next_attached_ == attached_.size()) {
    on_written();
  } else {
    write_next();
  }
}

void connection::drop_sent(std::size_t sent) {
  auto first_unsent = gather_.begin();
  while (first_unsent != gather_.end() && sent >= first_unsent->size()) {
    sent -= first_unsent->size();
    ++first_unsent;
  }
  gather_.erase(gather_.begin(), first_unsent);
  if (!gather_.empty()) gather_.front() += sent;
}

// The write deadline counts from the last progress, so it is armed at each wait.
void connection::wait_writable(void (connection::*resume)()) {
  owner_.arm(deadline_, timeout_kind::write, steady::now());
  socket_->async_wait(tcp::socket::wait_write,
                      [self = shared_from_this(), resume](const boost::system::error_code& ec) {
                        if (self->phase_ != phase::writing) return;
                        if (ec) {
                          self->close();
                        } else {
                          ((*self).*resume)();
                        }
                      });
}

void connection::send_file() {
  const response& r = attached_[next_attached_].owner;
  const std::uint64_t length = r.content_length();
  while (file_sent_ < length) {
    off_t offset = static_cast<off_t>(r.file_offset() + file_sent_);
    const std::size_t chunk = static_cast<std::size_t>(std::min<std::uint64_t>(length - file_sent_, 1u << 22));
    const ssize_t n = ::sendfile(socket_->native_handle(), r.file()->fd(), &offset, chunk);
    if (n > 0) {
      file_sent_ += static_cast<std::uint64_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      wait_writable(&connection::send_file);
      return;
    }
    // 0: the file shrank under us; <0: a read error. The Content-Length already
    // sent cannot be honoured any more, so the connection must end here.
    close();
    return;
  }
  file_sent_ = 0;
  ++next_attached_;
  if (next_attached_ == attached_.size() && out_sent_ == out_.size()) {
    on_written();
  } else {
    write_next();
  }
}

// Reached only from send_gather() and send_file(), once all is out: write
// errors close the connection where they happen.
void connection::on_written() {
  if (owner_.timing()) record_phase(stet::phase::write, write_start_, steady::now(), nullptr);
  answered_ = true;
  out_.clear();
  attached_.clear();
  attached_bytes_ = 0;
  if (out_.capacity() > retained_output_bytes) std::string().swap(out_);
  if (stream_.is_stream()) {
    pump_stream();
    return;
  }
  after_write();
}

void connection::after_write() {
  if (close_after_write_) {
    linger();
    return;
  }
  phase_ = phase::reading;
  process();  // requests pipelined behind the ones just answered
}

// Closing with unread input makes the kernel send RST, which can destroy the
// response before the client reads it. So: FIN first, then read and discard
// until the client closes or linger_timeout passes (nginx's lingering close).
void connection::linger() {
  phase_ = phase::lingering;
  boost::system::error_code ignored;
  socket_->shutdown(tcp::socket::shutdown_send, ignored);
  owner_.arm(deadline_, timeout_kind::linger, steady::now());
  discard_input();
}

void connection::discard_input() {
  socket_->async_read_some(asio::buffer(buffer_.get(), capacity_),
                           [self = shared_from_this()](const boost::system::error_code& ec, std::size_t) {
                             if (self->phase_ != phase::lingering) return;
                             if (ec) {
                               self->close();
                             } else {
                               self->discard_input();
                             }
                           });
}

}  // namespace stet::detail
