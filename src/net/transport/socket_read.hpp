#pragma once
// The connection's read: Asio's async_read_some, minus the read that cannot
// succeed.
//
// Asio's reactor tries every read at once before it waits for the socket
// (a "speculative" recv), and it stops trying only after an end of stream. For
// a keep-alive connection that speculative recv comes right after the response
// went out, before the client can have sent anything: it fails with EAGAIN,
// one wasted system call per request (about 1.1 µs on the benchmark machine,
// 7% of a /plaintext request). This read asks the kernel (TCP_INQ) how much
// each recv left behind, and queues the next read for the socket's next
// readiness edge without trying it when all of these hold:
//   - the previous recv left nothing, not even a FIN (TCP_INQ counts one);
//   - the worker has not been back to its event loop since, so no edge was
//     consumed without a read waiting for it;
//   - a response was written since, so a reset that came with the request
//     (which TCP_INQ does not report) has already failed that write.
// Otherwise it behaves exactly like async_read_some. (A short recv alone, the
// test nginx uses with EPOLLRDHUP beside it, would not do here: data and a FIN
// or reset that arrive together make one edge, and the connection would then
// wait for a timeout.)
//
// The buffer is asked for only when the read is about to be tried (at start,
// or when the socket becomes readable), so a connection that waits for its
// next request holds no buffer while it waits.
//
// It is an operation of Asio's own reactor (boost::asio::detail), queued with
// the reactor's public start_op() on the descriptor the socket registered, so
// the event loop, cancellation, close and shutdown treat it like any read.
// That is written against the Asio this project builds with (Boost 1.81's Asio
// 1.26, epoll reactor); with any other, socket_read is plain async_read_some.

#include "net/asio.hpp"
#include "net/transport/transport.hpp"

#include <boost/asio/version.hpp>

#include <cstddef>
#include <memory>
#include <optional>
#include <utility>

#ifndef STET_SOCKET_READ_ON_REACTOR
#if BOOST_ASIO_VERSION == 102600 && defined(BOOST_ASIO_HAS_EPOLL) && !defined(BOOST_ASIO_HAS_IO_URING_AS_DEFAULT)
#define STET_SOCKET_READ_ON_REACTOR 1
#else
#define STET_SOCKET_READ_ON_REACTOR 0
#endif
#endif

#if STET_SOCKET_READ_ON_REACTOR
#include <boost/asio/detail/reactor.hpp>
#include <boost/asio/detail/reactor_op.hpp>
#include <boost/asio/detail/socket_ops.hpp>
#endif

namespace stet::detail {

/// A read with plain Asio operations: a wait for readability, then one
/// non-blocking read into the buffer `t.buffer` gives at that moment. Used
/// where socket_read's own operation cannot be (another Asio, or while it is
/// still queued after a cancel).
template <class Socket>
void read_when_ready(Socket& socket, const io_target& t, std::shared_ptr<void> keep) {
  socket.async_wait(Socket::wait_read, [&socket, t, keep = std::move(keep)](boost::system::error_code ec) mutable {
    std::size_t n = 0;
    if (!ec) {
      const std::span<char> into = t.buffer(t.self, false);
      n = socket.read_some(asio::buffer(into.data(), into.size()), ec);
      if (ec == asio::error::would_block) {  // a spurious wake-up: wait again
        read_when_ready(socket, t, std::move(keep));
        return;
      }
    }
    t.done(t.self, ec, n);
  });
}

#if STET_SOCKET_READ_ON_REACTOR

// The socket's registration with the reactor is a protected member of Asio's
// basic_socket; a pointer to it, formed inside a derived class, reads it
// without a cast.
template <class Socket>
struct socket_registration : Socket {
  static auto& implementation(Socket& socket) {
    constexpr auto impl = &socket_registration::impl_;
    return (socket.*impl).get_implementation();
  }
  static asio::detail::reactor::per_descriptor_data& of(Socket& socket) { return implementation(socket).reactor_data_; }
};

/// Hands `fd`, a stream socket accepted with SOCK_NONBLOCK (native_accept), to
/// `socket` as what it is: Asio's assign() takes any descriptor for a possible
/// duplicate of another (closing one then costs an epoll_ctl(DEL), since the
/// kernel removes a descriptor from epoll only when its last duplicate closes)
/// whose blocking mode it does not know (making it non-blocking costs an
/// ioctl). Neither is true here: this descriptor has no duplicate, and it is
/// non-blocking for the kernel, now for Asio too.
template <class Socket>
void assign_accepted(Socket& socket, const typename Socket::protocol_type& protocol, int fd,
                     boost::system::error_code& ec) {
  socket.assign(protocol, fd, ec);
  if (ec) return;
  socket_registration<Socket>::implementation(socket).state_ =
      asio::detail::socket_ops::stream_oriented | asio::detail::socket_ops::non_blocking;
}

class socket_read final : public asio::detail::reactor_op {
 public:
  static constexpr bool skips_probes = true;

  socket_read() noexcept;
  socket_read(const socket_read&) = delete;
  socket_read& operator=(const socket_read&) = delete;

  /// Starts a read into the buffer `t.buffer` gives when the read is tried;
  /// `answered` says a response was written since the last read completed.
  /// `keep` owns the object this read is part of and is held until `t.done`
  /// has run (or the io_context is destroyed with the read still queued).
  template <class Socket>
  void start(Socket& socket, const io_target& t, bool answered, std::shared_ptr<void>&& keep) {
    // Asking the (type-erased) executor for its context costs a query: once.
    if (reactor_ == nullptr) reactor_ = &asio::use_service<asio::detail::reactor>(socket.get_executor().context());
    start_on(socket.native_handle(), socket_registration<Socket>::of(socket), t, answered, std::move(keep));
  }

  /// What the listener knows of the socket this read will serve, told before
  /// the first start(): `inq_on`, TCP_INQ is on already (inherited from the
  /// listening socket); `fresh`, the socket was registered with the reactor in
  /// the handler that starts the first read, so no readiness was consumed yet
  /// and that read may wait for the socket's first edge untried, as nginx's
  /// first read waits for epoll (a client's request seldom arrives with the
  /// handshake's last ACK, and trying costs an EAGAIN or a peek).
  void assume(bool inq_on, bool fresh) noexcept {
    inq_preset_ = inq_on;
    fresh_ = fresh;
  }

  /// System calls saved so far (reads that were not tried at once).
  std::size_t probes_skipped() const noexcept { return probes_skipped_; }
  /// Started and not completed yet (a cancelled read stays so until its
  /// completion has run): start() must not be called then.
  bool busy() const noexcept { return queued_; }

 private:
  void start_on(int fd, asio::detail::reactor::per_descriptor_data& registration, const io_target& t, bool answered,
                std::shared_ptr<void>&& keep);
  static status perform(asio::detail::reactor_op* base);
  std::optional<status> peek() noexcept;
  static void complete(void* owner, asio::detail::scheduler_operation* base, const boost::system::error_code&,
                       std::size_t);

  asio::detail::reactor* reactor_ = nullptr;
  int fd_ = -1;
  io_target target_;
  std::shared_ptr<void> keep_;
  bool inq_reported_ = false;   // TCP_INQ is on for fd_
  bool inq_preset_ = false;     // assume(): TCP_INQ was on from accept
  bool fresh_ = false;          // assume(): the first read need not be tried
  bool drained_ = false;        // the last recv left nothing (no byte, no FIN) in the kernel
  bool in_completion_ = false;  // running done_: no event was consumed since that recv
  bool skip_probe_ = false;     // set only while start_op() runs
  bool in_start_ = false;       // perform() is the speculative try start_op() makes
  bool queued_ = false;         // started and not yet completed
  std::size_t probes_skipped_ = 0;
};

#else

class socket_read {
 public:
  static constexpr bool skips_probes = false;

  template <class Socket>
  void start(Socket& socket, const io_target& t, bool /*answered*/, std::shared_ptr<void> keep) {
    read_when_ready(socket, t, std::move(keep));
  }
  void assume(bool /*inq_on*/, bool /*fresh*/) noexcept {}
  std::size_t probes_skipped() const noexcept { return 0; }
  bool busy() const noexcept { return false; }
};

#endif

}  // namespace stet::detail
