#pragma once
// Back-pressure checks from the client's side: send a body without blocking
// until the kernel takes nothing more (the server stopped reading), then the
// rest once the server reads again.

#include "support/http_client.hpp"

#include <fcntl.h>
#include <sys/socket.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>
#include <thread>

namespace stet::test {

/// Sends up to `total` filler bytes on `c` until twenty tries 20 ms apart
/// find the socket full; returns how many were taken. Leaves `c` non-blocking.
inline std::uint64_t send_until_stalled(raw_client& c, std::uint64_t total) {
  ::fcntl(c.fd(), F_SETFL, ::fcntl(c.fd(), F_GETFL) | O_NONBLOCK);
  const std::string block(64 * 1024, 's');
  std::uint64_t sent = 0;
  for (int idle = 0; idle < 20 && sent < total;) {
    const ssize_t n = ::send(c.fd(), block.data(), std::min<std::uint64_t>(block.size(), total - sent), MSG_NOSIGNAL);
    if (n > 0) {
      sent += static_cast<std::uint64_t>(n);
      idle = 0;
      continue;
    }
    ++idle;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return sent;
}

/// Sends filler from `sent` up to `total` as the server takes it, then makes
/// `c` blocking again.
inline void send_rest(raw_client& c, std::uint64_t sent, std::uint64_t total) {
  const std::string block(64 * 1024, 's');
  while (sent < total) {
    const ssize_t n = ::send(c.fd(), block.data(), std::min<std::uint64_t>(block.size(), total - sent), MSG_NOSIGNAL);
    if (n > 0) {
      sent += static_cast<std::uint64_t>(n);
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }
  ::fcntl(c.fd(), F_SETFL, ::fcntl(c.fd(), F_GETFL) & ~O_NONBLOCK);
}

}  // namespace stet::test
