#include "support/hand_loop.hpp"

#include "support/require.hpp"

#include <sys/epoll.h>
#include <sys/socket.h>

#include <cerrno>

namespace {

// Set only around poll_handlers() on the fuzzer's thread; any other epoll
// (another thread's, a blocking wait) goes to the kernel.
thread_local bool skip_zero_timeout_waits = false;

}  // namespace

// This definition takes the place of libc's for the whole fuzz executable
// (the sanitizers do not intercept epoll_wait); it is epoll_pwait without a
// signal mask, unless a pass of handlers is running.
extern "C" int epoll_wait(int epfd, epoll_event* events, int maxevents, int timeout) {
  if (timeout == 0 && skip_zero_timeout_waits) return 0;
  return ::epoll_pwait(epfd, events, maxevents, timeout, nullptr);
}

namespace stet::fuzz {

std::size_t poll_handlers(stet::detail::asio::io_context& io, std::size_t limit) {
  if (io.stopped()) io.restart();
  skip_zero_timeout_waits = true;
  std::size_t n = 0;
  while (n < limit && io.poll_one() > 0) ++n;
  skip_zero_timeout_waits = false;
  return n;
}

std::size_t poll_reactor(stet::detail::asio::io_context& io) {
  if (io.stopped()) io.restart();
  return io.poll_one();
}

std::size_t run_until_quiet(stet::detail::asio::io_context& io, std::string_view payload) {
  std::size_t steps = 0;
  for (;;) {
    steps += poll_handlers(io, max_steps - steps);
    require(steps < max_steps, "the server goes quiet when no bytes arrive (no busy wait)", payload);
    if (poll_reactor(io) == 0) return steps;
    ++steps;
  }
}

bool drain_client(int fd, std::string& into) {
  char buffer[16 * 1024];
  for (;;) {
    const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
    if (n > 0) {
      into.append(buffer, static_cast<std::size_t>(n));
      continue;
    }
    if (n == 0) return true;
    if (errno == EINTR) continue;
    return errno != EAGAIN && errno != EWOULDBLOCK;
  }
}

bool pump(stet::detail::asio::io_context& io, int fd, std::string& into, std::string_view payload) {
  bool ended = false;
  for (int rounds = 0;; ++rounds) {
    require(rounds < 10'000, "the server goes quiet when no bytes arrive (no busy wait)", payload);
    run_until_quiet(io, payload);
    const std::size_t before = into.size();
    ended = drain_client(fd, into) || ended;
    // run_until_quiet() returned with nothing queued and nothing ready in
    // the reactor; a read that took nothing changed nothing the server can
    // see, so another turn would only find it quiet again (two system
    // calls per piece, a quarter of request_path's). Bytes taken may have
    // made room for a write the server waits on: then it is turned again.
    if (into.size() == before) return ended;
  }
}

void wait_for_reactor(stet::detail::asio::io_context& io, std::chrono::milliseconds most) {
  if (io.stopped()) io.restart();
  io.run_one_for(most);
}

}  // namespace stet::fuzz
