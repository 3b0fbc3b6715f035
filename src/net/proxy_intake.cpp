#include "net/proxy_intake.hpp"

#include "net/proxy_protocol.hpp"
#include "net/socket_transport.hpp"
#include "net/tls_transport.hpp"
#include "net/worker.hpp"

#include <sys/socket.h>

#include <cerrno>

namespace stet::detail {
namespace {

template <class Protocol>
class proxy_intake final : public proxy_intake_base, public std::enable_shared_from_this<proxy_intake<Protocol>> {
 public:
  using socket_type = typename Protocol::socket;

  proxy_intake(worker& owner, socket_type socket, const endpoint& peer, tls_service* tls)
      : owner_(owner), socket_(std::move(socket)), peer_(peer), tls_(tls) {
    deadline_.target = this;
  }
  ~proxy_intake() { worker::disarm(deadline_); }

  void start() {
    owner_.intake_started(*this);
    owner_.arm(deadline_, timeout_kind::first_byte, steady::now());
    boost::system::error_code ignored;
    socket_.non_blocking(true, ignored);
    try_header();  // what arrived with the handshake needs no wait
  }

  void on_timeout(timeout_kind kind) override {
    owner_.count_close(kind == timeout_kind::first_byte ? close_reason::first_byte_timeout
                                                        : close_reason::header_timeout);
    close();
  }
  // The bytes it holds are a header not yet complete, not a request: only
  // bytes beyond what was looked at say something more is on its way.
  bool evictable() noexcept override {
    boost::system::error_code ec;
    return !closed_ && socket_.available(ec) <= peeked_;
  }
  void evict() noexcept override {
    owner_.count_close(peeked_ == 0 ? close_reason::evicted_silent : close_reason::evicted_partial);
    close();
  }
  void close() noexcept override {
    if (closed_) return;
    closed_ = true;
    worker::disarm(deadline_);
    boost::system::error_code ignored;
    socket_.close(ignored);
    owner_.intake_finished(*this, false);
  }

 private:
  void try_header();
  void wait() {
    socket_.async_wait(socket_type::wait_read, [self = this->shared_from_this()](boost::system::error_code ec) {
      if (self->closed_) return;
      if (ec) {
        self->close();
        return;
      }
      self->try_header();
    });
  }
  void finish(const proxy_header& h);

  worker& owner_;
  socket_type socket_;
  endpoint peer_;
  tls_service* tls_;  // the listener's (it outlives the workers); null for plain HTTP
  deadline_hook deadline_;
  std::size_t peeked_ = 0;
  bool closed_ = false;
};

template <class Protocol>
void proxy_intake<Protocol>::try_header() {
  const std::span<char> buffer = owner_.discard_buffer().first(proxy_default_max_bytes);
  const ssize_t n = ::recv(socket_.native_handle(), buffer.data(), buffer.size(), MSG_PEEK);
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
    wait();
    return;
  }
  if (n <= 0) {
    close();  // the client left (or reset) before saying anything
    return;
  }
  const proxy_header h = parse_proxy_header(std::string_view(buffer.data(), static_cast<std::size_t>(n)));
  switch (h.what) {
    case proxy_header::status::invalid:
      owner_.count_close(close_reason::proxy_protocol);
      close();
      return;
    case proxy_header::status::need_more:
      // The header's deadline counts from its first byte and is never extended.
      if (peeked_ == 0) owner_.arm(deadline_, timeout_kind::header, steady::now());
      peeked_ = static_cast<std::size_t>(n);
      wait();
      return;
    case proxy_header::status::done: finish(h); return;
  }
}

template <class Protocol>
void proxy_intake<Protocol>::finish(const proxy_header& h) {
  // Exactly the header's bytes: they were peeked, so they are all there.
  const std::span<char> buffer = owner_.discard_buffer();
  const ssize_t taken = ::recv(socket_.native_handle(), buffer.data(), h.consumed, 0);
  if (taken != static_cast<ssize_t>(h.consumed)) {
    close();
    return;
  }
  closed_ = true;
  worker::disarm(deadline_);
  const endpoint client = h.local ? peer_ : h.source;
  owner_.intake_finished(*this, true);
  owner_.adopt(secured(std::make_unique<socket_transport<Protocol>>(std::move(socket_)), tls_, owner_.io()), client);
}

template <class Protocol>
void start(worker& owner, typename Protocol::socket socket, const endpoint& peer, tls_service* tls) {
  std::make_shared<proxy_intake<Protocol>>(owner, std::move(socket), peer, tls)->start();
}

}  // namespace

void start_proxy_intake(worker& owner, tcp::socket socket, const endpoint& peer, tls_service* tls) {
  start<tcp>(owner, std::move(socket), peer, tls);
}

void start_proxy_intake(worker& owner, asio::local::stream_protocol::socket socket, const endpoint& peer,
                        tls_service* tls) {
  start<asio::local::stream_protocol>(owner, std::move(socket), peer, tls);
}

}  // namespace stet::detail
