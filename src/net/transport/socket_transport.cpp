#include "net/transport/socket_transport.hpp"

#include <sys/sendfile.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <utility>

namespace stet::detail {
namespace {

boost::system::error_code system_error(int e) noexcept {
  if (e == EAGAIN || e == EWOULDBLOCK) return asio::error::would_block;
  return {e, boost::system::system_category()};
}

// Runs a write system call (its result a count or -1), again after EINTR:
// the bytes it took, or 0 with `ec` set.
template <class Call>
std::size_t retrying(Call call, boost::system::error_code& ec) noexcept {
  for (;;) {
    const ssize_t n = call();
    if (n >= 0) {
      ec = {};
      return static_cast<std::size_t>(n);
    }
    if (errno == EINTR) continue;
    ec = system_error(errno);
    return 0;
  }
}

}  // namespace

template <class Protocol>
socket_transport<Protocol>::socket_transport(socket_type socket, accepted_as facts) : socket_(std::move(socket)) {
  boost::system::error_code ignored;
  if (!socket_.non_blocking()) socket_.non_blocking(true, ignored);
  read_.assume(facts.inq_on, facts.fresh);
}

template <class Protocol>
void socket_transport<Protocol>::start_read(const io_target& t, bool answered, std::shared_ptr<void>&& keep) {
  if (read_.busy()) {
    // A cancelled read (a timeout answered meanwhile) whose completion has not
    // run yet: the next read, the lingering one, takes the plain way.
    read_when_ready(socket_, t, std::move(keep));
    return;
  }
  // After shutdown_send() the answer is out: the read that waits for the
  // client's FIN (a lingering close) is as good as answered.
  read_.start(socket_, t, answered || std::exchange(sent_fin_, false), std::move(keep));
}

// One piece goes by send(), several by sendmsg(); MSG_NOSIGNAL: a peer that
// reset must fail the write, not kill the process.
template <class Protocol>
std::size_t socket_transport<Protocol>::write_some(std::span<const iovec> pieces,
                                                   boost::system::error_code& ec) noexcept {
  const int fd = socket_.native_handle();
  return retrying(
      [&]() -> ssize_t {
        if (pieces.size() == 1) return ::send(fd, pieces.front().iov_base, pieces.front().iov_len, MSG_NOSIGNAL);
        msghdr message{};
        message.msg_iov = const_cast<iovec*>(pieces.data());  // NOLINT: sendmsg does not write through it
        message.msg_iovlen = std::min<std::size_t>(pieces.size(), IOV_MAX);
        return ::sendmsg(fd, &message, MSG_NOSIGNAL);
      },
      ec);
}

template <class Protocol>
std::size_t socket_transport<Protocol>::write_file(int fd, std::uint64_t offset, std::size_t length,
                                                   boost::system::error_code& ec) noexcept {
  auto at = static_cast<off_t>(offset);
  return retrying([&] { return ::sendfile(socket_.native_handle(), fd, &at, length); }, ec);
}

template <class Protocol>
void socket_transport<Protocol>::wait_writable(const io_target& t, std::shared_ptr<void>&& keep) {
  socket_.async_wait(socket_type::wait_write,
                     [t, keep = std::move(keep)](const boost::system::error_code& ec) { t.done(t.self, ec, 0); });
}

// Readable is not yet gone: a peek tells bytes (a pipelined request) from
// the end of the stream, and a spurious wake-up (EAGAIN) waits again.
template <class Protocol>
void socket_transport<Protocol>::watch_peer(const io_target& t, std::shared_ptr<void>&& keep) {
  socket_.async_wait(socket_type::wait_read,
                     [this, t, keep = std::move(keep)](const boost::system::error_code& ec) mutable {
                       if (ec) {
                         t.done(t.self, ec, 0);
                         return;
                       }
                       char byte = 0;
                       const ssize_t n = ::recv(socket_.native_handle(), &byte, 1, MSG_PEEK | MSG_DONTWAIT);
                       if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
                         watch_peer(t, std::move(keep));
                       } else if (n < 0) {
                         t.done(t.self, system_error(errno), 0);
                       } else if (n == 0) {
                         t.done(t.self, asio::error::eof, 0);
                       } else {
                         t.done(t.self, {}, 0);
                       }
                     });
}

template <class Protocol>
std::size_t socket_transport<Protocol>::available() noexcept {
  boost::system::error_code ec;
  const std::size_t n = socket_.available(ec);
  return ec ? 0 : n;
}

template <class Protocol>
void socket_transport<Protocol>::shutdown_send() noexcept {
  boost::system::error_code ignored;
  socket_.shutdown(socket_type::shutdown_send, ignored);
  sent_fin_ = !ignored;
}

template <class Protocol>
void socket_transport<Protocol>::cancel() noexcept {
  boost::system::error_code ignored;
  socket_.cancel(ignored);
}

template <class Protocol>
void socket_transport<Protocol>::close() noexcept {
  boost::system::error_code ignored;
  socket_.close(ignored);
}

template class socket_transport<tcp>;
template class socket_transport<asio::local::stream_protocol>;

}  // namespace stet::detail
