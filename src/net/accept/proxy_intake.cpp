#include "net/accept/proxy_intake.hpp"

#include "net/accept/proxy_protocol.hpp"
#include "net/server/worker.hpp"
#include "net/transport/socket_transport.hpp"
#include "net/transport/tls_transport.hpp"

#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <string>

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
  // What it took is a header not yet complete, not a request; bytes still in
  // the kernel are more of it on their way (read at once).
  bool evictable() noexcept override {
    boost::system::error_code ec;
    return !closed_ && socket_.available(ec) == 0;
  }
  void evict() noexcept override {
    owner_.count_close(held_.empty() ? close_reason::evicted_silent : close_reason::evicted_partial);
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
  bool take(std::size_t n) noexcept;
  void finish(const proxy_header& h, std::size_t rest);

  worker& owner_;
  socket_type socket_;
  endpoint peer_;
  tls_service* tls_;  // the listener's (it outlives the workers); null for plain HTTP
  deadline_hook deadline_;
  // The header's bytes taken so far (it is incomplete while they are kept):
  // grown as they come, never past what the parser accepts as one header
  // (proxy_v1_max_bytes, or proxy_default_max_bytes for v2).
  std::string held_;
  bool closed_ = false;
};

template <class Protocol>
void proxy_intake<Protocol>::try_header() {
  // Never more than one header's worth: the parser refuses a longer one
  // before it could be complete.
  const std::size_t room = proxy_default_max_bytes - std::min(held_.size(), proxy_default_max_bytes - 1);
  const std::span<char> buffer = owner_.discard_buffer().first(room);
  ssize_t n = 0;
  do {
    n = ::recv(socket_.native_handle(), buffer.data(), buffer.size(), MSG_PEEK);
  } while (n < 0 && errno == EINTR);
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
    wait();
    return;
  }
  if (n <= 0) {
    close();  // the client left (or reset) before finishing its header
    return;
  }
  const std::size_t before = held_.size();
  const auto peeked = static_cast<std::size_t>(n);
  try {
    held_.append(buffer.data(), peeked);
  } catch (const std::bad_alloc&) {
    close();
    return;
  }
  const proxy_header h = parse_proxy_header(held_);
  switch (h.what) {
    case proxy_header::status::invalid:
      owner_.count_close(close_reason::proxy_protocol);
      close();
      return;
    case proxy_header::status::need_more:
      // Every byte so far is header: take them, so that the wait below sleeps
      // until more come instead of waking for these again.
      if (!take(peeked)) return;
      // The header's deadline counts from its first byte and is never extended.
      if (before == 0) owner_.arm(deadline_, timeout_kind::header, steady::now());
      wait();
      return;
    case proxy_header::status::done: finish(h, h.consumed - before); return;
  }
}

// Takes `n` bytes already peeked (so all there) off the socket; false when it
// could not (the connection is closed then).
template <class Protocol>
bool proxy_intake<Protocol>::take(std::size_t n) noexcept {
  const std::span<char> buffer = owner_.discard_buffer();
  ssize_t taken = 0;
  do {
    taken = ::recv(socket_.native_handle(), buffer.data(), n, 0);
  } while (taken < 0 && errno == EINTR);
  if (taken == static_cast<ssize_t>(n)) return true;
  close();
  return false;
}

// `rest`: the header's bytes still in the kernel (peeked, not taken).
template <class Protocol>
void proxy_intake<Protocol>::finish(const proxy_header& h, std::size_t rest) {
  if (!take(rest)) return;
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
