#pragma once
// One client connection to 127.0.0.1 for the request-path target: sends its
// pieces one write each (TCP_NODELAY, so the server sees them as separate
// reads when it keeps up), reads at the same time (a server blocked on a full
// socket never deadlocks the client), half-closes after the last piece and
// returns everything received up to the server's close.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace stet::fuzz {

struct exchange_result {
  std::string received;
  bool closed = false;  ///< the server closed (EOF or reset) before the deadline
};

/// Connects to 127.0.0.1:`port`, delivers `payload` cut into `pieces`, shuts
/// down the sending side and reads until the server closes or `timeout_ms`
/// passes. Aborts when the connection cannot be made (the server is gone).
exchange_result exchange(std::uint16_t port, std::string_view payload, const std::vector<std::size_t>& pieces,
                         int timeout_ms);

}  // namespace stet::fuzz
