// run_until_signal(): the process around a server. Signals reach a program on
// whichever thread does not block them, so instead of sigwait() (which needs
// every thread, the embedding program's too, to block them first) a handler
// writes the signal's number into a pipe and the calling thread reads it
// there: the only async-signal-safe work is one write(2).
#include <stet/run.hpp>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <string>
#include <system_error>

#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>

namespace stet {
namespace {

// The write end of the pipe of the call in progress; -1 when there is none.
std::atomic<int> signal_pipe{-1};
static_assert(std::atomic<int>::is_always_lock_free, "read from a signal handler");

void note_signal(int number) {
  const int saved = errno;  // the interrupted code may be about to read errno
  const int fd = signal_pipe.load(std::memory_order_relaxed);
  if (fd >= 0) {
    const auto byte = static_cast<unsigned char>(number);
    [[maybe_unused]] const ssize_t n = ::write(fd, &byte, 1);  // full pipe: the signal is already noted
  }
  errno = saved;
}

config_error system_failure(const char* what) {
  const std::error_code code(errno, std::system_category());
  return {code, std::string("run_until_signal: ") + what + ": " + code.message()};
}

// Owns the pipe and the installed handlers for one call; the destructor puts
// back what the program had.
class signal_catcher {
 public:
  signal_catcher() = default;
  signal_catcher(const signal_catcher&) = delete;
  signal_catcher& operator=(const signal_catcher&) = delete;
  ~signal_catcher() {
    restore_handlers();
    if (registered_) signal_pipe.store(-1);
    for (const int fd : fds_) {
      if (fd >= 0) ::close(fd);
    }
  }

  config_error open(bool hangup) {
    if (::pipe2(fds_, O_CLOEXEC) != 0) return system_failure("pipe");
    // Never block inside the handler: a full pipe already holds a signal to act on.
    if (::fcntl(fds_[1], F_SETFL, O_NONBLOCK) != 0) return system_failure("fcntl");
    int none = -1;
    if (!signal_pipe.compare_exchange_strong(none, fds_[1])) {
      return {std::make_error_code(std::errc::device_or_resource_busy),
              "run_until_signal: already running on another thread"};
    }
    registered_ = true;
    count_ = hangup ? 3 : 2;
    struct sigaction action {};
    action.sa_handler = note_signal;
    action.sa_flags = SA_RESTART;
    sigemptyset(&action.sa_mask);
    for (std::size_t i = 0; i < count_; ++i) {
      if (::sigaction(signals_[i], &action, &saved_[i]) != 0) {
        count_ = i;
        return system_failure("sigaction");
      }
    }
    return {};
  }

  // The signal a handler noted; 0 when reading fails for good.
  int next() const noexcept {
    unsigned char byte = 0;
    for (;;) {
      const ssize_t n = ::read(fds_[0], &byte, 1);
      if (n == 1) return byte;
      if (n < 0 && errno == EINTR) continue;
      return 0;
    }
  }

  // From here a stop signal does what it did before the call (see run.hpp).
  void restore_handlers() noexcept {
    for (std::size_t i = 0; i < count_; ++i) ::sigaction(signals_[i], &saved_[i], nullptr);
    count_ = 0;
  }

  // The signals with a handler installed.
  sigset_t set() const noexcept {
    sigset_t set;
    sigemptyset(&set);
    for (std::size_t i = 0; i < count_; ++i) sigaddset(&set, signals_[i]);
    return set;
  }

 private:
  int fds_[2] = {-1, -1};
  int signals_[3] = {SIGINT, SIGTERM, SIGHUP};
  struct sigaction saved_[3]{};
  std::size_t count_ = 0;
  bool registered_ = false;  // signal_pipe holds fds_[1]
};

// Puts back the calling thread's signal mask, however the call ends.
class mask_guard {
 public:
  explicit mask_guard(const sigset_t& block) noexcept { pthread_sigmask(SIG_BLOCK, &block, &before_); }
  mask_guard(const mask_guard&) = delete;
  mask_guard& operator=(const mask_guard&) = delete;
  ~mask_guard() { pthread_sigmask(SIG_SETMASK, &before_, nullptr); }

  // The mask from before, with `caught` taken out: this thread takes them.
  void unblock(const sigset_t& caught) const noexcept {
    sigset_t during = before_;
    for (const int sig : {SIGINT, SIGTERM, SIGHUP}) {
      if (sigismember(&caught, sig) == 1) sigdelset(&during, sig);
    }
    pthread_sigmask(SIG_SETMASK, &during, nullptr);
  }

 private:
  sigset_t before_{};
};

}  // namespace

config_error run_until_signal(server& s, const run_options& options) {
  signal_catcher catcher;
  if (config_error failed = catcher.open(static_cast<bool>(options.on_hangup))) return failed;

  // The workers start with the signals blocked (they inherit this thread's
  // mask), so the handler runs here or on a thread of the program's, never
  // interrupting a worker's system calls; this thread takes them once started.
  const sigset_t caught = catcher.set();
  const mask_guard mask(caught);
  if (config_error failed = s.start()) return failed;
  mask.unblock(caught);

  if (options.on_started) options.on_started(s);
  for (int sig = catcher.next(); sig == SIGHUP; sig = catcher.next()) options.on_hangup(s);
  catcher.restore_handlers();
  s.stop();
  s.wait();
  return {};
}

}  // namespace stet
