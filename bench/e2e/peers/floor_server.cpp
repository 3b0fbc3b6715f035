// The floor of the end-to-end benchmark: about the least a server can do per
// keep-alive request over epoll on this machine. One recv and one send per
// wake-up, no HTTP parsing beyond finding the end of each head, a fixed
// answer: 200 "Hello, World!" for GET /plaintext, 404 for anything else. It is
// not an HTTP server (no framing checks, no bodies, no timeouts); it is the
// measuring stick that shows how much of a server's CPU per request is the
// kernel's, which no user-space work can remove.
//
//   floor_server PORT     (127.0.0.1 only, one thread, runs until killed)

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>

namespace {

constexpr std::string_view ok_response =
    "HTTP/1.1 200 OK\r\nServer: floor\r\nContent-Type: text/plain\r\nContent-Length: 13\r\n\r\nHello, World!";
constexpr std::string_view not_found_response =
    "HTTP/1.1 404 Not Found\r\nServer: floor\r\nContent-Type: text/plain\r\nContent-Length: 9\r\n\r\nNot Found";
constexpr std::size_t max_answers_per_read = 64;

std::array<char, 65536> input;
std::array<char, max_answers_per_read * ok_response.size()> output;

// Answers every complete head in input[0, size) (a head cut by the end of
// the read is dropped: the benchmark's requests are far smaller than a read).
std::size_t answer(std::size_t size) {
  std::string_view received(input.data(), size);
  std::size_t length = 0;
  for (std::size_t answers = 0; answers < max_answers_per_read; ++answers) {
    const std::size_t end = received.find("\r\n\r\n");
    if (end == std::string_view::npos) break;
    const std::string_view r = received.starts_with("GET /plaintext ") ? ok_response : not_found_response;
    std::memcpy(output.data() + length, r.data(), r.size());
    length += r.size();
    received.remove_prefix(end + 4);
  }
  return length;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: floor_server PORT\n");
    return 2;
  }
  const int on = 1;
  const int listener = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
  ::setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(std::atoi(argv[1])));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 || ::listen(listener, 1024) != 0) {
    std::perror("floor_server: listen");
    return 1;
  }
  const int poller = ::epoll_create1(0);
  epoll_event listen_event{};
  listen_event.events = EPOLLIN;
  listen_event.data.fd = listener;
  ::epoll_ctl(poller, EPOLL_CTL_ADD, listener, &listen_event);

  std::array<epoll_event, 512> events;
  for (;;) {
    const int ready = ::epoll_wait(poller, events.data(), static_cast<int>(events.size()), -1);
    for (int i = 0; i < ready; ++i) {
      const int fd = events[i].data.fd;
      if (fd == listener) {
        int client;
        while ((client = ::accept4(listener, nullptr, nullptr, SOCK_NONBLOCK)) >= 0) {
          ::setsockopt(client, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
          epoll_event client_event{};
          client_event.events = EPOLLIN | EPOLLRDHUP | EPOLLET;
          client_event.data.fd = client;
          ::epoll_ctl(poller, EPOLL_CTL_ADD, client, &client_event);
        }
        continue;
      }
      // One recv per edge, as nginx does with EPOLLRDHUP: no read that can only fail.
      const ssize_t got = ::recv(fd, input.data(), input.size(), 0);
      if (got < 0 && (errno == EAGAIN || errno == EINTR)) continue;
      if (got <= 0) {
        ::close(fd);
        continue;
      }
      const std::size_t length = answer(static_cast<std::size_t>(got));
      if ((length > 0 && ::send(fd, output.data(), length, MSG_NOSIGNAL) < 0) || (events[i].events & EPOLLRDHUP) != 0) {
        ::close(fd);
      }
    }
  }
}
