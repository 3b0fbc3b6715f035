#include "net/accept/native_accept.hpp"

#if STET_SOCKET_READ_ON_REACTOR

#include <boost/asio/error.hpp>

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <utility>

namespace stet::detail {

native_accept::native_accept(void* owner, done_fn on_done) noexcept
    : reactor_op(boost::system::error_code(), &native_accept::perform, &native_accept::complete),
      owner_(owner),
      done_(on_done) {}

void native_accept::start_on(int fd, asio::detail::reactor::per_descriptor_data& registration,
                             std::shared_ptr<native_accept>&& self) {
  // The operation is its own queue node: a second start while queued would
  // corrupt the reactor's queue.
  if (keep_) std::abort();
  keep_ = std::move(self);
  listening_fd_ = fd;
  accepted_ = -1;
  ec_ = boost::system::error_code();
  reactor_->start_op(asio::detail::reactor::read_op, fd, registration, this, /*is_continuation=*/true,
                     /*allow_speculative=*/true);
}

// As Asio's own accept: a connection that was reset or failed before it was
// taken (ECONNABORTED, EPROTO) is skipped, not reported.
asio::detail::reactor_op::status native_accept::perform(asio::detail::reactor_op* base) {
  native_accept* self = static_cast<native_accept*>(base);
  for (;;) {
    socklen_t length = sizeof self->peer_;
    const int fd = ::accept4(self->listening_fd_, reinterpret_cast<sockaddr*>(&self->peer_), &length,
                             SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd >= 0) {
      self->accepted_ = fd;
      return done;
    }
    if (errno == EINTR || errno == ECONNABORTED || errno == EPROTO) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) return not_done;
    self->ec_ = boost::system::error_code(errno, boost::asio::error::get_system_category());
    return done;
  }
}

// `owner` is null when the io_context is destroyed with the operation queued.
void native_accept::complete(void* owner, asio::detail::scheduler_operation* base, const boost::system::error_code&,
                             std::size_t) {
  native_accept* self = static_cast<native_accept*>(base);
  const std::shared_ptr<native_accept> keep = std::move(self->keep_);  // `self` lives inside it
  const int fd = std::exchange(self->accepted_, -1);
  if (owner == nullptr) {
    if (fd >= 0) ::close(fd);
    return;
  }
  self->done_(self->owner_, self->ec_, fd, self->peer_);
}

}  // namespace stet::detail

#endif  // STET_SOCKET_READ_ON_REACTOR
