#include "support/loopback_client.hpp"

#include "support/require.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>

namespace stet::fuzz {
namespace {

int connect_to(std::uint16_t port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  require(fd >= 0, "socket()");
  const int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  require(::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0, "the server accepts connections");
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
  return fd;
}

}  // namespace

exchange_result exchange(std::uint16_t port, std::string_view payload, const std::vector<std::size_t>& pieces,
                         int timeout_ms) {
  const int fd = connect_to(port);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  exchange_result out;
  std::size_t piece = 0;
  std::size_t piece_sent = 0;  // bytes of pieces[piece] already written
  std::size_t offset = 0;      // start of pieces[piece] in payload
  bool sending = !pieces.empty();
  if (!sending) ::shutdown(fd, SHUT_WR);
  char buffer[16 * 1024];
  while (!out.closed) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    pollfd p{fd, static_cast<short>(POLLIN | (sending ? POLLOUT : 0)), 0};
    if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
    if ((p.revents & POLLOUT) != 0 && sending) {
      const std::string_view rest = payload.substr(offset + piece_sent, pieces[piece] - piece_sent);
      const ssize_t n = ::send(fd, rest.data(), rest.size(), MSG_NOSIGNAL);
      if (n > 0) piece_sent += static_cast<std::size_t>(n);
      // The server may close first (it answered an error): the rest is not wanted.
      const bool refused = n < 0 && errno != EAGAIN && errno != EINTR;
      if (piece_sent == pieces[piece]) {
        offset += pieces[piece++];
        piece_sent = 0;
      }
      if (refused || piece == pieces.size()) {
        sending = false;
        ::shutdown(fd, SHUT_WR);
      }
    }
    if ((p.revents & (POLLIN | POLLHUP | POLLERR)) != 0) {
      const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
      if (n > 0) {
        out.received.append(buffer, static_cast<std::size_t>(n));
      } else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
        out.closed = true;
      }
    }
  }
  ::close(fd);
  return out;
}

}  // namespace stet::fuzz
