// A streamed answer fed from elsewhere (server-sent events: events arrive
// from other threads) parks the connection instead of being asked for its
// next piece again and again: the connection waits, with no deadline of its
// own, until the wake the producer kept is called, a time limit passes (the
// heartbeat), the server stops, or the client leaves (the socket is watched:
// a departed client costs nothing until the next event or heartbeat).

#include "net/http1/connection.hpp"

#include "net/server/worker.hpp"

namespace stet::detail {

std::function<void()> connection::park(std::chrono::milliseconds at_most) {
  if (phase_ != phase::writing) return {};
  parked_ = true;
  const std::uint32_t generation = ++park_generation_;
  const std::weak_ptr<connection> weak = weak_from_this();
  if (at_most.count() > 0) {
    if (!park_timer_) park_timer_ = std::make_unique<asio::steady_timer>(owner_.io());
    park_timer_->expires_after(at_most);
    park_timer_->async_wait([weak, generation](const boost::system::error_code& ec) {
      if (ec) return;
      if (const auto c = weak.lock()) c->unpark(generation);
    });
  }
  // Called from any thread, at most once per park by the event queue; the
  // post keeps everything on the worker's thread.
  asio::io_context* io = &owner_.io();
  return [io, weak, generation] {
    asio::post(*io, [weak, generation] {
      if (const auto c = weak.lock()) c->unpark(generation);
    });
  };
}

// The write deadline does not run while nothing is being written: a stream
// may wait for its next event longer than write_timeout.
void connection::wait_parked() {
  worker::disarm(deadline_);
  if (watching_peer_) return;
  watching_peer_ = true;
  stream_->watch_peer({this, &connection::parked_peer_stirred, nullptr}, shared_from_this());
}

void connection::parked_peer_stirred(void* self, const boost::system::error_code& ec, std::size_t /*bytes*/) {
  connection& c = *static_cast<connection*>(self);
  if (ec == asio::error::operation_aborted) return;
  c.watching_peer_ = false;
  if (!c.parked_ || c.phase_ != phase::writing) return;
  // Bytes from the client while it reads a stream (a pipelined request) wait
  // until the stream ends; an end of stream or an error means it left.
  if (ec) c.close();
}

void connection::unpark(std::uint32_t generation) {
  if (!parked_ || generation != park_generation_ || phase_ != phase::writing) return;
  parked_ = false;
  if (park_timer_) park_timer_->cancel();
  if (std::exchange(watching_peer_, false)) stream_->cancel();
  pump();
}

}  // namespace stet::detail
