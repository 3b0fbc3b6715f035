#pragma once
// A write to a socket or pipe whose reader is gone raises SIGPIPE, and SIGPIPE
// kills the process by default. Asio's socket writes pass MSG_NOSIGNAL, but
// sendfile(2) and the access log's write(2) cannot. So every stet thread that
// writes blocks SIGPIPE for itself: the call then fails with EPIPE, which is
// handled like any other write error, and the signal stays pending on that
// thread, never delivered. The process-wide disposition belongs to the
// embedding program and is left alone.

#include <csignal>

#include <pthread.h>

namespace stet::detail {

inline void block_sigpipe_in_this_thread() noexcept {
  sigset_t pipe_only;
  sigemptyset(&pipe_only);
  sigaddset(&pipe_only, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_only, nullptr);
}

}  // namespace stet::detail
