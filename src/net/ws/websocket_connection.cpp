#include "net/ws/websocket_connection.hpp"

#include "counters/counter_add.hpp"
#include "net/server/worker.hpp"
#include "net/ws/websocket_worker.hpp"
#include "websocket/upgrade.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <string>

namespace stet::detail {

namespace {

// Below this much room after the unconsumed bytes, they move to the front
// before the next read (a partial frame at the end of the previous one).
constexpr std::size_t min_read_bytes = 4 * 1024;
// Pieces of one gather write (a queue of many shared frames takes several).
constexpr std::size_t gather_pieces = 64;

}  // namespace

void start_websocket(worker& w, std::unique_ptr<transport> stream, const endpoint& peer, websocket_upgrade& up,
                     read_ahead ahead) {
  websocket_worker& ws = w.websockets();
  auto c = std::make_shared<websocket_connection>(ws, std::move(stream), peer, up);
  ws.adopt(c);
  c->start(std::move(ahead));
}

websocket_connection::websocket_connection(websocket_worker& owner, std::unique_ptr<transport> stream,
                                           const endpoint& peer, websocket_upgrade& up)
    : ws::session(up, owner, peer), owner_(owner), stream_(std::move(stream)), mailbox_(owner.mailbox()) {
  deadline_.target = this;
}

// Only unlinks the timer: by now the session ended (the worker ends every
// session before it goes), or this is the destruction of a task posted from
// another thread that the stopped loop never ran.
websocket_connection::~websocket_connection() { deadline_list::unlink(deadline_); }

void websocket_connection::start(read_ahead ahead) {
  const std::shared_ptr<websocket_connection> self = shared_from_this();
  corked_ = true;
  open();
  if (ahead.buffer && ahead.begin < ahead.end && !ended()) {
    lent_ = std::move(ahead.buffer);
    block_ = lent_.get();
    capacity_ = ahead.capacity;
    begin_ = ahead.begin;
    end_ = ahead.end;
  }
  corked_ = false;
  if (owner_.owner().draining()) drain();
  if (ended()) return;
  if (block_ != nullptr) {
    process_input();
  } else {
    flush();
    read_more();
  }
}

void websocket_connection::read_more() {
  if (reading_ || ended()) return;
  reading_ = true;
  stream_->start_read({this, &websocket_connection::read_done, &websocket_connection::read_buffer},
                      std::exchange(wrote_, false), shared_from_this());
}

// Asked for when the read is tried: an idle session takes its buffer only now.
std::span<char> websocket_connection::read_buffer(void* self, bool speculative) noexcept {
  auto& c = *static_cast<websocket_connection*>(self);
  if (c.lingering_) return c.owner_.discard_buffer();
  if (c.block_ == nullptr) {
    if (speculative) return {};
    try {
      c.block_ = c.owner_.take_block();
    } catch (...) {
      return {};  // out of memory: the read finds nowhere to go and fails
    }
    c.capacity_ = ws::read_block_bytes;
    c.begin_ = c.end_ = 0;
  }
  const std::size_t wanted = std::max(c.wanted_, min_read_bytes);
  if (c.begin_ == c.end_) {
    c.begin_ = c.end_ = 0;
  } else if (c.capacity_ - c.end_ < wanted && !c.move_into_block(wanted) && c.begin_ > 0) {
    std::memmove(c.block_, c.block_ + c.begin_, c.end_ - c.begin_);
    c.end_ -= c.begin_;
    c.begin_ = 0;
  }
  return {c.block_ + c.end_, c.capacity_ - c.end_};
}

// A lent buffer is given up as soon as what is left of it, and what the
// reader wants next, fit one of the worker's blocks: it may be far larger.
bool websocket_connection::move_into_block(std::size_t wanted) noexcept {
  const std::size_t left = end_ - begin_;
  if (!lent_ || left + wanted > ws::read_block_bytes) return false;
  char* block = nullptr;
  try {
    block = owner_.take_block();
  } catch (...) {
    return false;  // out of memory: keep reading into the lent buffer
  }
  std::memcpy(block, block_ + begin_, left);
  lent_.reset();
  block_ = block;
  capacity_ = ws::read_block_bytes;
  begin_ = 0;
  end_ = left;
  return true;
}

void websocket_connection::read_done(void* self, const boost::system::error_code& ec, std::size_t n) {
  static_cast<websocket_connection*>(self)->on_read(ec, n);
}

void websocket_connection::on_read(const boost::system::error_code& ec, std::size_t n) {
  reading_ = false;
  if (ended()) return;
  if (ec || (n == 0 && !lingering_ && block_ == nullptr)) {
    end_now();  // end of stream or reset: on_close reports 1006 unless the close handshake is done
    return;
  }
  single_writer_add(owner_.counters().bytes_in, n);
  if (lingering_) {
    read_more();
    return;
  }
  end_ += n;
  process_input();
}

// Every complete frame is handled, then everything they queued goes out in
// one write; the buffer goes back to the pool once all of it is consumed.
// Back-pressure may stop the handling with whole frames still unconsumed;
// when the write drains the queue at once, those go first: a read now would
// wait for bytes the client has already sent.
void websocket_connection::process_input() {
  const std::shared_ptr<websocket_connection> self = shared_from_this();
  // At most one pass without progress: bytes the reader cannot take (a
  // failed or closing session) must not spin here.
  for (int idle_passes = 0; idle_passes < 2;) {
    std::size_t consumed = 0;
    if (block_ != nullptr && begin_ < end_) {
      corked_ = true;
      const input_result r = on_input({block_ + begin_, end_ - begin_});
      corked_ = false;
      if (ended()) return;
      begin_ += r.consumed;
      wanted_ = r.wanted;
      consumed = r.consumed;
    }
    if (block_ != nullptr && begin_ == end_) release_block();
    flush();
    if (ended() || !wants_input()) return;
    // wanted_ != 0: the reader waits for bytes. Otherwise it was stopped
    // by back-pressure, which the flush may just have relieved.
    if (block_ == nullptr || begin_ == end_ || wanted_ != 0) break;
    idle_passes = consumed > 0 ? 0 : idle_passes + 1;
  }
  read_more();
}

void websocket_connection::release_block() noexcept {
  if (block_ == nullptr) return;
  if (lent_) {
    lent_.reset();
  } else {
    owner_.give_block(block_);
  }
  block_ = nullptr;
  capacity_ = ws::read_block_bytes;
  begin_ = end_ = 0;
}

void websocket_connection::flush() noexcept {
  if (ended() || waiting_writable_ || corked_) return;
  if (terminate_pending()) {
    terminate();
    return;
  }
  corked_ = true;
  while (!output().empty()) {
    std::array<iovec, gather_pieces> pieces{};
    const std::size_t count = output().gather(pieces);
    boost::system::error_code ec;
    const std::size_t n = stream_->write_some({pieces.data(), count}, ec);
    if (ec == asio::error::would_block) {
      waiting_writable_ = true;
      corked_ = false;
      stream_->wait_writable({this, &websocket_connection::writable, nullptr}, shared_from_this());
      return;
    }
    if (ec) {
      corked_ = false;
      end_now();
      return;
    }
    wrote_ = true;
    single_writer_add(owner_.counters().bytes_out, n);
    output().consume(n);
    try {
      on_output_written();  // on_drain may queue more: this loop writes it
    } catch (...) {         // only allocation can throw there; the session ends as on a write error
      corked_ = false;
      end_now();
      return;
    }
    if (ended()) return;
  }
  corked_ = false;
  if (finishing() && !lingering_) finish_tcp();
}

void websocket_connection::writable(void* self, const boost::system::error_code& ec, std::size_t /*bytes*/) {
  auto& c = *static_cast<websocket_connection*>(self);
  c.waiting_writable_ = false;
  if (c.ended()) return;
  if (ec) {
    c.end_now();
    return;
  }
  c.flush();
}

// After the close handshake (or a failure) the server ends the TCP
// connection first (RFC 6455 7.1.1). FIN, then read and discard until the
// peer closes its side or close_timeout passes: closing with unread input
// would send a reset that can destroy the close frame before it is read.
void websocket_connection::finish_tcp() {
  lingering_ = true;
  release_block();
  stream_->shutdown_send();
  arm_timer(options().close_timeout);
  read_more();
}

void websocket_connection::output_queued() noexcept {
  if (corked_ || ended()) return;
  owner_.want_flush(*this);
}

void websocket_connection::end_now() noexcept {
  if (ended()) return;
  const std::shared_ptr<websocket_connection> self = shared_from_this();
  deadline_list::unlink(deadline_);
  stream_->close();
  release_transport();
  release_block();
  on_transport_end();
  owner_.ended(*this);
  // Not now: this may run inside a callback of the route (terminate() from
  // on_message), which must not be destroyed under it.
  try {
    asio::post(owner_.io(), [self] { self->release_callbacks(); });
  } catch (...) {  // no memory for the task: they go with the last handle
  }
}

// A websocket_handle may keep this object alive past its worker's event loop,
// and a socket must not outlive the loop it was made on. So the transport
// goes now, destroyed by the loop once the completions its close queued have
// run (as connection::close() does; not here: this may run inside one).
void websocket_connection::release_transport() noexcept {
  try {
    asio::post(owner_.io(), [stream = std::move(stream_)] {});
  } catch (...) {  // no memory for the task: the transport goes at once
  }
}

void websocket_connection::arm_timer(clock::duration d) noexcept { owner_.arm(deadline_, d); }

void websocket_connection::on_timeout() {
  const std::shared_ptr<websocket_connection> self = shared_from_this();
  on_timer();
  flush();
}

// Posted, not run here: this is called from within a write's bookkeeping,
// and reading may queue more output, which writes and may unblock again.
void websocket_connection::input_unblocked() noexcept {
  if (resume_posted_) return;
  resume_posted_ = true;
  asio::post(owner_.io(), [self = shared_from_this()] {
    self->resume_posted_ = false;
    if (!self->ended() && !self->reading_) self->process_input();
  });
}

// Both held to the owner's mailbox bound (server_options::websocket_mailbox_*):
// a send it refuses is dropped, as one over max_backpressure is. A close is
// not refused, but posted once per session, so closes cannot fill it either.
send_status websocket_connection::post_send(std::string_view payload, message_kind kind) {
  if (!is_open()) return send_status::closed;
  if (on_owner_thread()) return send(payload, kind);
  auto task = [self = shared_from_this(), text = std::string(payload), kind] {
    self->send(text, kind);
    self->flush();
  };
  switch (mailbox_->post(std::move(task), payload.size())) {
    case websocket_mailbox::post_result::posted: return send_status::posted;
    case websocket_mailbox::post_result::full: return send_status::dropped;
    case websocket_mailbox::post_result::closed: break;
  }
  return send_status::closed;
}

void websocket_connection::post_close(std::uint16_t code, std::string_view reason) {
  if (!is_open()) return;
  if (on_owner_thread()) {
    close(code, reason);
    return;
  }
  if (close_posted_.exchange(true, std::memory_order_acq_rel)) return;  // the first close wins anyway
  mailbox_->post_unbounded([self = shared_from_this(), code, text = std::string(reason)] {
    self->close(code, text);
    self->flush();
  });
}

}  // namespace stet::detail
