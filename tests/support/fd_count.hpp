#pragma once
// Descriptor accounting for tests whose server runs in the test process: what
// /proc/self/fd holds, which of those sockets the server accepted, and the
// RLIMIT_NOFILE the test may raise or lower.

#include <dirent.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <vector>

namespace stet::test {

/// The descriptors open in this process (server and test clients alike),
/// ascending; the handle used to list them is left out.
inline std::vector<int> open_fd_numbers() {
  std::vector<int> fds;
  DIR* dir = ::opendir("/proc/self/fd");
  if (dir == nullptr) return fds;
  while (const dirent* entry = ::readdir(dir)) {
    if (entry->d_name[0] == '.') continue;
    const int fd = std::atoi(entry->d_name);
    if (fd != ::dirfd(dir)) fds.push_back(fd);
  }
  ::closedir(dir);
  std::sort(fds.begin(), fds.end());
  return fds;
}

inline std::size_t open_fds() { return open_fd_numbers().size(); }

/// Connected TCP sockets in this process whose local port is `port`: the
/// server's accepted connections (a test client's local port is ephemeral,
/// and the listener has no peer).
inline std::size_t accepted_sockets(std::uint16_t port) {
  std::size_t n = 0;
  for (const int fd : open_fd_numbers()) {
    sockaddr_storage local{};
    sockaddr_storage peer{};
    socklen_t local_len = sizeof local;
    socklen_t peer_len = sizeof peer;
    if (::getsockname(fd, reinterpret_cast<sockaddr*>(&local), &local_len) != 0 || local.ss_family != AF_INET) continue;
    if (::getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &peer_len) != 0) continue;
    if (ntohs(reinterpret_cast<const sockaddr_in&>(local).sin_port) == port) ++n;
  }
  return n;
}

/// The RLIMIT_NOFILE under which exactly `free` more descriptors can be
/// opened. The limit bounds descriptor numbers, not their count, and a new
/// descriptor takes the lowest free number: so count the gaps from 0 up.
inline rlim_t fd_limit_leaving(std::size_t free) {
  const std::vector<int> open = open_fd_numbers();
  std::size_t gaps = 0;
  for (int n = 0;; ++n) {
    if (std::binary_search(open.begin(), open.end(), n)) continue;
    if (++gaps == free) return static_cast<rlim_t>(n) + 1;
  }
}

/// Sets the soft RLIMIT_NOFILE for as long as it lives (never above the hard
/// limit), and puts the old one back.
class scoped_fd_limit {
 public:
  explicit scoped_fd_limit(rlim_t soft) {
    ::getrlimit(RLIMIT_NOFILE, &saved_);
    rlimit wanted = saved_;
    wanted.rlim_cur = std::min(soft, saved_.rlim_max);
    ::setrlimit(RLIMIT_NOFILE, &wanted);
  }
  ~scoped_fd_limit() { ::setrlimit(RLIMIT_NOFILE, &saved_); }
  scoped_fd_limit(const scoped_fd_limit&) = delete;
  scoped_fd_limit& operator=(const scoped_fd_limit&) = delete;

  /// The soft limit now in force.
  static rlim_t current() {
    rlimit now{};
    ::getrlimit(RLIMIT_NOFILE, &now);
    return now.rlim_cur;
  }

 private:
  rlimit saved_{};
};

}  // namespace stet::test
