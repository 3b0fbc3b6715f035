#pragma once
// A deliberately plain HTTP/1.1 client over a blocking POSIX socket, for tests
// that must control every byte they send and see every byte they get back.

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace stet::test {

struct http_response {
  int status = 0;
  std::string reason;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;

  /// First header named `name`, case-insensitive.
  std::optional<std::string> header(std::string_view name) const;
  std::size_t count(std::string_view name) const;
};

class raw_client {
 public:
  /// Connects at once. A nonzero `receive_buffer` sets SO_RCVBUF before the
  /// handshake (so the advertised window stays that small): a slow reader.
  explicit raw_client(std::uint16_t port, std::string_view host = "127.0.0.1", int receive_buffer = 0);
  ~raw_client();
  raw_client(const raw_client&) = delete;
  raw_client& operator=(const raw_client&) = delete;

  bool connected() const noexcept { return fd_ >= 0; }
  int fd() const noexcept { return fd_; }
  /// True once a read saw EOF or a reset.
  bool peer_closed() const noexcept { return eof_; }

  /// Sends every byte (false if the peer is gone).
  bool send(std::string_view bytes);
  void shutdown_write();

  /// Reads one response; `head_only` for answers to HEAD (no body even with a
  /// Content-Length). nullopt on timeout, EOF or a malformed response.
  std::optional<http_response> read_response(bool head_only = false,
                                             std::chrono::milliseconds timeout = std::chrono::seconds(5));
  /// Reads until the peer closes; returns everything received (also what was buffered).
  std::string read_until_close(std::chrono::milliseconds timeout = std::chrono::seconds(5));
  /// True when the peer closes (EOF or reset) within `timeout` and no unread
  /// bytes are left (none buffered, none arriving).
  bool wait_closed(std::chrono::milliseconds timeout = std::chrono::seconds(5));
  /// True when neither bytes nor EOF arrive for `period`.
  bool quiet_for(std::chrono::milliseconds period);
  /// The bytes of a single recv() (after waiting up to `timeout` for any), plus
  /// anything still buffered; shows how the peer's writes were coalesced.
  std::string read_once(std::chrono::milliseconds timeout = std::chrono::seconds(5));

  /// One request with Host and the given method and target; returns the response.
  std::optional<http_response> request(std::string_view method, std::string_view target,
                                       std::string_view extra_headers = {}, std::string_view body = {});

 private:
  bool fill(std::chrono::steady_clock::time_point deadline);
  int fd_ = -1;
  std::string pending_;  // received, not yet consumed
  bool eof_ = false;
};

/// Parses a whole response from `bytes` (used for read_until_close output).
std::optional<http_response> parse_response(std::string_view bytes, std::size_t* consumed = nullptr,
                                            bool head_only = false);

}  // namespace stet::test
