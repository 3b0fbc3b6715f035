#include "support/handler_pass.hpp"

#include <sys/epoll.h>

namespace {

// Set only around poll_handlers() on the fuzzer's thread; any other epoll
// (a server's own worker thread, a blocking wait) goes to the kernel.
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

}  // namespace stet::fuzz
