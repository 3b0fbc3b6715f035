#pragma once
// A WebSocket test client over raw_client: the upgrade request, client frames
// sent (support/websocket_frames.hpp writes them), and the server's unmasked
// frames parsed back.

#include "support/http_client.hpp"
#include "support/websocket_frames.hpp"

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace stet::test {

/// One frame from the server.
struct ws_frame {
  std::uint8_t opcode = 0;  ///< 1 text, 2 binary, 8 close, 9 ping, 10 pong
  bool fin = true;
  std::string payload;
  /// A close frame's code (0 when it has none).
  std::uint16_t close_code() const {
    return payload.size() >= 2 ? static_cast<std::uint16_t>((static_cast<unsigned char>(payload[0]) << 8) |
                                                            static_cast<unsigned char>(payload[1]))
                               : 0;
  }
};

/// Takes one whole frame off the front of `bytes`, if there is one.
inline std::optional<ws_frame> take_frame(std::string& bytes) {
  if (bytes.size() < 2) return std::nullopt;
  const auto b0 = static_cast<unsigned char>(bytes[0]);
  const auto b1 = static_cast<unsigned char>(bytes[1]);
  std::size_t at = 2;
  std::uint64_t length = b1 & 0x7f;
  const std::size_t extra = length == 126 ? 2 : length == 127 ? 8 : 0;
  if (bytes.size() < at + extra) return std::nullopt;
  if (extra != 0) {
    length = 0;
    for (std::size_t i = 0; i < extra; ++i) length = (length << 8) | static_cast<unsigned char>(bytes[at + i]);
    at += extra;
  }
  if (bytes.size() < at + length) return std::nullopt;
  ws_frame f;
  f.opcode = b0 & 0x0f;
  f.fin = (b0 & 0x80) != 0;
  f.payload = bytes.substr(at, length);
  bytes.erase(0, at + length);
  return f;
}

/// A connected client after a 101 on `path` (not connected() when refused).
class ws_client {
 public:
  ws_client(std::uint16_t port, std::string_view path, int receive_buffer = 0) : c_(port, "127.0.0.1", receive_buffer) {
    c_.send("GET " + std::string(path) +
            " HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n");
    const auto r = c_.read_response(true);
    status_ = r ? r->status : 0;
  }
  int status() const noexcept { return status_; }
  raw_client& raw() noexcept { return c_; }

  bool send(ws::opcode op, std::string_view payload) { return c_.send(ws::client_frame(op, payload)); }
  bool send_text(std::string_view text) { return send(ws::opcode::text, text); }

  /// The next frame, waiting up to `timeout` for its bytes.
  std::optional<ws_frame> next(std::chrono::milliseconds timeout = std::chrono::seconds(5)) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      if (auto f = take_frame(buffer_)) return f;
      const auto now = std::chrono::steady_clock::now();
      if (now >= deadline) return std::nullopt;
      const std::string got = c_.read_once(std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now));
      if (got.empty()) return std::nullopt;
      buffer_ += got;
    }
  }
  /// Pings and waits for the pong, skipping other frames: the session has run on_open by then.
  bool round_trip() {
    if (!send(ws::opcode::ping, "rt")) return false;
    while (auto f = next()) {
      if (f->opcode == 10) return true;
    }
    return false;
  }

 private:
  raw_client c_;
  std::string buffer_;
  int status_ = 0;
};

}  // namespace stet::test
