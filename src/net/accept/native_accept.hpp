#pragma once
// The listener's accept: accept4(SOCK_NONBLOCK | SOCK_CLOEXEC) as an operation
// of Asio's own reactor, on the descriptor the listening socket registered.
//
// Asio's acceptor calls accept(2) and then makes the socket non-blocking with
// ioctl(FIONBIO), and it marks every socket it is handed as a possible
// duplicate, so closing it costs an epoll_ctl(DEL) first. A socket accepted
// here is non-blocking and close-on-exec from the start, and is handed to
// Asio as what it is (assign_accepted(), socket_read.hpp): two system calls
// fewer per connection. The listening socket carries TCP_NODELAY and TCP_INQ,
// which accepted sockets inherit (native_accept_test checks the kernel does),
// so no setsockopt is made per connection either.
//
// The operation is its own queue node, kept alive by itself while Asio holds
// it (an io_context destroyed with it queued only drops that reference and
// closes a socket accepted but not delivered). Written against the Asio
// socket_read.hpp names (Boost 1.81's, epoll reactor); with another Asio the
// listener uses Asio's async_accept.

#include "net/asio.hpp"
#include "net/transport/socket_read.hpp"

#include <sys/socket.h>

#include <memory>

#if STET_SOCKET_READ_ON_REACTOR

namespace stet::detail {

class native_accept final : public asio::detail::reactor_op {
 public:
  /// How one accept ends, on the listening socket's thread: an error
  /// (operation_aborted once the listening socket is closed), or `fd`, an
  /// accepted socket the callee now owns, and its peer address.
  using done_fn = void (*)(void* owner, const boost::system::error_code& ec, int fd, const sockaddr_storage& peer);

  native_accept(void* owner, done_fn on_done) noexcept;
  native_accept(const native_accept&) = delete;
  native_accept& operator=(const native_accept&) = delete;

  /// Accepts the next connection on `listening` (a socket object holding the
  /// listening descriptor). `self` is this operation, held while queued.
  template <class Socket>
  static void start(Socket& listening, std::shared_ptr<native_accept> self) {
    native_accept& op = *self;
    if (op.reactor_ == nullptr) {
      op.reactor_ = &asio::use_service<asio::detail::reactor>(listening.get_executor().context());
    }
    op.start_on(listening.native_handle(), socket_registration<Socket>::of(listening), std::move(self));
  }

 private:
  void start_on(int fd, asio::detail::reactor::per_descriptor_data& registration,
                std::shared_ptr<native_accept>&& self);
  static status perform(asio::detail::reactor_op* base);
  static void complete(void* owner, asio::detail::scheduler_operation* base, const boost::system::error_code&,
                       std::size_t);

  void* owner_;  // the listener
  done_fn done_;
  asio::detail::reactor* reactor_ = nullptr;
  int listening_fd_ = -1;
  int accepted_ = -1;
  sockaddr_storage peer_{};
  std::shared_ptr<native_accept> keep_;
};

}  // namespace stet::detail

#endif  // STET_SOCKET_READ_ON_REACTOR
