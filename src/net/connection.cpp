#include "net/connection.hpp"

#include "http/percent.hpp"
#include "http/request_access.hpp"
#include "http/response_writer.hpp"
#include "http/token.hpp"
#include "net/worker.hpp"

#include <cstring>

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

bool starts_with_icase(std::string_view s, std::string_view prefix) noexcept {
  return s.size() >= prefix.size() && iequals(s.substr(0, prefix.size()), prefix);
}

}  // namespace

connection::connection(worker& owner, tcp::socket socket)
    : owner_(owner),
      socket_(std::move(socket)),
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
  owner_.arm(deadline_, timeout_kind::header, steady::now());
  read_more();
}

void connection::drain() {
  draining_ = true;
  if (phase_ == phase::reading && !parser_.in_message() && begin_ == end_) close();
}

void connection::close() noexcept {
  if (phase_ == phase::closed) return;
  phase_ = phase::closed;
  worker::disarm(deadline_);
  boost::system::error_code ignored;
  socket_.close(ignored);
  owner_.closed(*this);
}

void connection::on_timeout(timeout_kind kind) {
  if (phase_ == phase::closed) return;
  const bool partial_request = parser_.in_message() || begin_ < end_;
  if ((kind == timeout_kind::header && partial_request) || kind == timeout_kind::body) {
    // A request was started and stalled: say so (408) before closing.
    boost::system::error_code ignored;
    socket_.cancel(ignored);
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
  socket_.async_read_some(
      asio::buffer(buffer_.get() + end_, capacity_ - end_),
      [self = shared_from_this()](const boost::system::error_code& ec, std::size_t n) { self->on_read(ec, n); });
}

void connection::on_read(const boost::system::error_code& ec, std::size_t n) {
  if (phase_ != phase::reading) return;  // a timeout answered meanwhile, or closed
  if (ec) {
    close();  // EOF or reset: whatever was half-received has no one to answer to
    return;
  }
  end_ += n;
  process();
}

// Parses and answers every complete request already buffered, then writes all
// their responses at once (pipelined responses share one write).
void connection::process() {
  while (begin_ < end_ && pending_output() < owner_.options().max_pipeline_output_bytes) {
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
    if (close_after_write_) break;
  }
  if (!out_.empty()) {
    flush();
  } else if (close_after_write_) {
    close();
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
  if (!request_ready_ && !prepare_request()) {
    fail(error::bad_target);
    return;
  }
  request_ready_ = false;
  request_access::set_body(request_, body_);

  const server_options& options = owner_.options();
  const bool keep_alive = parser_.keep_alive() && !draining_ && !parser_.is_upgrade() &&
                          (options.max_requests_per_connection == 0 || served_ < options.max_requests_per_connection);
  request_access::set_version(request_, parser_.version(), keep_alive);

  if (request_.method() == stet::method::connect) {
    queue_response(response::text("CONNECT is not supported\n", status::not_implemented), false, true);
  } else {
    response r = owner_.routes().handle(request_);
    const bool close = !keep_alive || r.closes_connection();
    queue_response(std::move(r), request_.method() == stet::method::head, close);
  }
  arena_.release();
  if (body_.capacity() > retained_body_bytes) std::string().swap(body_);
}

// Fills request_ from the parsed head: views into buffer_, decoded path in the arena.
bool connection::prepare_request() {
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
  request_ready_ = true;
  return true;
}

void connection::queue_response(response&& r, bool head_request, bool close) {
  const framing how{head_request, close, parser_.version() == 10 && !close};
  response_writer& writer = owner_.writer();
  if (response_writer::sends_body(r, how) && r.body().size() > attach_threshold) {
    writer.append_head(out_, r, how);
    attached_bytes_ += r.body().size();
    attached_.push_back(attached_body{out_.size(), std::move(r)});
  } else {
    writer.append(out_, r, how);
  }
  if (close) close_after_write_ = true;
}

void connection::fail(stet::error e) {
  const stet::status s = http_status(e);
  std::string text(reason_phrase(s));
  text += ": ";
  text += make_error_code(e).message();
  text += '\n';
  queue_response(response::text(text, s), false, true);
}

std::size_t connection::pending_output() const noexcept { return out_.size() + attached_bytes_; }

void connection::flush() {
  phase_ = phase::writing;
  owner_.arm(deadline_, timeout_kind::write, steady::now());
  auto done = [self = shared_from_this()](const boost::system::error_code& ec, std::size_t) { self->on_written(ec); };
  if (attached_.empty()) {
    asio::async_write(socket_, asio::buffer(out_), std::move(done));
    return;
  }
  gather_.clear();
  std::size_t from = 0;
  for (const attached_body& a : attached_) {
    gather_.emplace_back(out_.data() + from, a.offset - from);
    gather_.emplace_back(a.owner.body().data(), a.owner.body().size());
    from = a.offset;
  }
  gather_.emplace_back(out_.data() + from, out_.size() - from);
  asio::async_write(socket_, gather_, std::move(done));
}

void connection::on_written(const boost::system::error_code& ec) {
  if (phase_ != phase::writing) return;
  if (ec) {
    close();
    return;
  }
  out_.clear();
  attached_.clear();
  attached_bytes_ = 0;
  if (out_.capacity() > retained_output_bytes) std::string().swap(out_);
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
  socket_.shutdown(tcp::socket::shutdown_send, ignored);
  owner_.arm(deadline_, timeout_kind::linger, steady::now());
  discard_input();
}

void connection::discard_input() {
  socket_.async_read_some(asio::buffer(buffer_.get(), capacity_),
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
