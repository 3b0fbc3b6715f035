#include "net/redis/hiredis_asio.hpp"

#include <hiredis/async.h>

#include <boost/asio/posix/stream_descriptor.hpp>
#include <memory>
#include <utility>

namespace stet::detail {

namespace {

// One per attached context. Waits are one-shot in Asio and level-triggered
// wants in hiredis, so each completed wait hands the event to hiredis and
// waits again while hiredis still wants it. hiredis may free the context
// inside redisAsyncHandleRead/Write (a dropped connection): its cleanup hook
// clears `context_` first, and the waits still queued keep this object alive
// (shared_from_this) until they have run.
class hiredis_watch : public std::enable_shared_from_this<hiredis_watch> {
 public:
  hiredis_watch(asio::io_context& io, redisAsyncContext* context, std::function<void()> heard)
      : socket_(io), context_(context), heard_(std::move(heard)) {}

  bool open(int fd) {
    boost::system::error_code ec;
    socket_.assign(fd, ec);
    return !ec;
  }
  void want(asio::posix::descriptor_base::wait_type which, bool on) {
    (which == asio::posix::descriptor_base::wait_read ? want_read_ : want_write_) = on;
    if (on) arm(which);
  }
  // hiredis closes the socket itself right after this: give it back without
  // closing it, and drop the reference hiredis held.
  static void cleanup(void* self_ptr) {
    auto* self = static_cast<std::shared_ptr<hiredis_watch>*>(self_ptr);
    hiredis_watch& w = **self;
    w.context_ = nullptr;
    w.want_read_ = w.want_write_ = false;
    boost::system::error_code ignored;
    w.socket_.cancel(ignored);
    (void)w.socket_.release();
    delete self;
  }

 private:
  void arm(asio::posix::descriptor_base::wait_type which) {
    const bool reading = which == asio::posix::descriptor_base::wait_read;
    bool& waiting = reading ? read_waiting_ : write_waiting_;
    if (waiting || context_ == nullptr) return;
    waiting = true;
    socket_.async_wait(which, [self = shared_from_this(), which, reading](const boost::system::error_code& ec) {
      (reading ? self->read_waiting_ : self->write_waiting_) = false;
      if (ec || self->context_ == nullptr || !(reading ? self->want_read_ : self->want_write_)) return;
      if (reading) {
        redisAsyncHandleRead(self->context_);
        // Not for a read that ended the context (hiredis freed it inside).
        if (self->context_ != nullptr && self->heard_) self->heard_();
      } else {
        redisAsyncHandleWrite(self->context_);
      }
      if (self->context_ != nullptr && (reading ? self->want_read_ : self->want_write_)) self->arm(which);
    });
  }

  asio::posix::stream_descriptor socket_;
  redisAsyncContext* context_;
  std::function<void()> heard_;
  bool want_read_ = false;
  bool want_write_ = false;
  bool read_waiting_ = false;
  bool write_waiting_ = false;
};

hiredis_watch& watch_of(void* data) { return **static_cast<std::shared_ptr<hiredis_watch>*>(data); }

}  // namespace

bool attach_hiredis(redisAsyncContext* context, asio::io_context& io, std::function<void()> heard) {
  if (context->ev.data != nullptr) return false;
  auto watch = std::make_shared<hiredis_watch>(io, context, std::move(heard));
  if (!watch->open(context->c.fd)) return false;
  constexpr auto read = asio::posix::descriptor_base::wait_read;
  constexpr auto write = asio::posix::descriptor_base::wait_write;
  context->ev.data = new std::shared_ptr<hiredis_watch>(std::move(watch));
  context->ev.addRead = [](void* d) { watch_of(d).want(read, true); };
  context->ev.delRead = [](void* d) { watch_of(d).want(read, false); };
  context->ev.addWrite = [](void* d) { watch_of(d).want(write, true); };
  context->ev.delWrite = [](void* d) { watch_of(d).want(write, false); };
  context->ev.cleanup = &hiredis_watch::cleanup;
  return true;
}

}  // namespace stet::detail
