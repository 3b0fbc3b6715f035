// The connection's write side: answers are queued in order (every answer to a
// batch of pipelined requests, then a streamed body behind its head), go out
// in one gather write, and what follows the write runs from here: the next
// pipelined requests, the WebSocket hand-over, or the lingering close.

#include "net/http1/connection.hpp"

#include "http/response_writer.hpp"
#include "net/http1/stream_pump.hpp"
#include "net/server/worker.hpp"
#include "net/ws/websocket_connection.hpp"
#include "websocket/upgrade.hpp"

#include <utility>

namespace stet::detail {

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

void connection::flush() {
  observer_.write_started(owner_);
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
  if (!writing_piece_) observer_.batch_written(owner_);
  answered_ = true;
  x_->output.clear();
  if (x_->stream.is_stream()) {
    pump();
    return;
  }
  after_write();
}

void connection::pump() {
  switch (pump_stream(*x_, stream_chunked_, owner_, this)) {
    case pump_result::piece:
      writing_piece_ = true;
      write_next();
      return;
    case pump_result::nothing_yet:
      if (parked_) {
        wait_parked();
        return;
      }
      // Let the other connections run before asking again.
      asio::post(owner_.io(), [self = shared_from_this()] {
        if (self->phase_ == phase::writing) self->pump();
      });
      return;
    case pump_result::ended: after_write(); return;
    case pump_result::failed: close(); return;
  }
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
// Except when the client said it is done: its request asked to close
// (Connection: close, or HTTP/1.0 without keep-alive), was read whole, and
// nothing followed it. Then there is nothing to wait for, and the FIN goes
// with close() at once, as nginx closes such a connection (a shutdown, a
// read and a wait fewer per connection). TLS still ends with its close_notify.
void connection::linger() {
  if (x_ != nullptr && stream_->tls() == nullptr && !x_->parser.keep_alive() && !x_->parser.is_upgrade() &&
      !x_->parser.in_message() && x_->begin == x_->end) {
    close();
    return;
  }
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
