#include "net/transport/socket_read.hpp"

#if STET_SOCKET_READ_ON_REACTOR

#include <boost/asio/error.hpp>

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <utility>

// The operation relies on the epoll reactor's start_op() and on where the socket
// keeps its reactor registration (boost/asio/detail/impl/epoll_reactor.ipp,
// reactive_socket_service_base.hpp): check both before allowing another Asio
// version in socket_read.hpp.

namespace stet::detail {

socket_read::socket_read() noexcept
    : reactor_op(boost::system::error_code(), &socket_read::perform, &socket_read::complete) {}

void socket_read::start_on(int fd, asio::detail::reactor::per_descriptor_data& registration, const io_target& t,
                           bool answered, std::shared_ptr<void>&& keep) {
  // The operation is its own queue node: starting it again while Asio still
  // holds it would corrupt the reactor's or the scheduler's queue.
  if (queued_) std::abort();
  queued_ = true;
  if (fd_ != fd) {
    fd_ = fd;
    // Each recv then reports how much the kernel still holds, counting a
    // received FIN as one byte (Linux 4.18+). Without it nothing is ever known
    // to be drained and every read is tried at once, as Asio does.
    const int on = 1;
    inq_reported_ = inq_preset_ || ::setsockopt(fd_, IPPROTO_TCP, TCP_INQ, &on, sizeof on) == 0;
    drained_ = false;
  }
  target_ = t;
  keep_ = std::move(keep);
  ec_ = boost::system::error_code();
  bytes_transferred_ = 0;
  skip_probe_ = (drained_ && in_completion_ && answered) || std::exchange(fresh_, false);
  if (skip_probe_) ++probes_skipped_;
  // Queued for the socket's next readiness edge; tried first unless skip_probe_.
  in_start_ = true;
  reactor_->start_op(asio::detail::reactor::read_op, fd_, registration, this,
                     /*is_continuation=*/true, /*allow_speculative=*/true);
  in_start_ = false;
  skip_probe_ = false;
}

asio::detail::reactor_op::status socket_read::perform(asio::detail::reactor_op* base) {
  socket_read* self = static_cast<socket_read*>(base);
  if (self->skip_probe_) return not_done;
  std::span<char> buffer = self->target_.buffer(self->target_.self, self->in_start_);
  if (buffer.empty()) {
    // The target keeps its buffer for bytes that are there: look first.
    if (const std::optional<status> nothing_yet = self->peek()) return *nothing_yet;
    buffer = self->target_.buffer(self->target_.self, false);
  }
  iovec into{buffer.data(), buffer.size()};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))];
  msghdr message{};
  message.msg_iov = &into;
  message.msg_iovlen = 1;
  if (self->inq_reported_) {
    message.msg_control = control;
    message.msg_controllen = sizeof control;
  }
  for (;;) {
    const ssize_t n = ::recvmsg(self->fd_, &message, 0);
    if (n > 0) {
      self->bytes_transferred_ = static_cast<std::size_t>(n);
      self->drained_ = false;
      for (cmsghdr* c = CMSG_FIRSTHDR(&message); c != nullptr; c = CMSG_NXTHDR(&message, c)) {
        if (c->cmsg_level != IPPROTO_TCP || c->cmsg_type != TCP_CM_INQ) continue;
        int left = 0;
        std::memcpy(&left, CMSG_DATA(c), sizeof left);
        self->drained_ = left == 0;  // no byte and no FIN left
      }
      return done;
    }
    if (n == 0) {
      self->ec_ = asio::error::eof;
      return done;
    }
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) return not_done;
    self->ec_ = boost::system::error_code(errno, boost::asio::error::get_system_category());
    return done;
  }
}

// nullopt when a byte is waiting; otherwise how the read ends: not_done (none
// yet: wait for readiness), or done with an end of stream or an error.
std::optional<asio::detail::reactor_op::status> socket_read::peek() noexcept {
  for (;;) {
    char byte = 0;
    const ssize_t n = ::recv(fd_, &byte, 1, MSG_PEEK);
    if (n > 0) return std::nullopt;
    if (n == 0) {
      ec_ = asio::error::eof;
      return done;
    }
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) return not_done;
    ec_ = boost::system::error_code(errno, boost::asio::error::get_system_category());
    return done;
  }
}

// `owner` is null when the io_context is destroyed with the read queued: then
// only the keep-alive reference is dropped.
void socket_read::complete(void* owner, asio::detail::scheduler_operation* base, const boost::system::error_code&,
                           std::size_t) {
  socket_read* self = static_cast<socket_read*>(base);
  const std::shared_ptr<void> keep = std::move(self->keep_);  // `self` lives inside it
  self->queued_ = false;
  if (owner == nullptr) return;
  self->in_completion_ = true;
  self->target_.done(self->target_.self, self->ec_, self->bytes_transferred_);
  self->in_completion_ = false;
}

}  // namespace stet::detail

#endif  // STET_SOCKET_READ_ON_REACTOR
