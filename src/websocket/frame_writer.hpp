#pragma once
// Server frames (RFC 6455 5.2, never masked). A data frame goes out as a
// gather of [head, payload]: the head is built into a 10-byte value and the
// payload is never copied. Control frames are small enough to be built whole
// in a fixed buffer; a frame meant for many connections (publish) is built
// once into a shared immutable buffer.

#include "websocket/protocol.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace stet::detail::ws {

/// Bytes of a server frame head for a payload of `length` bytes: 2, 4 or 10.
constexpr std::size_t frame_head_size(std::uint64_t length) noexcept {
  return length < 126 ? 2 : length <= 0xffff ? 4 : 10;
}

/// A server frame's head.
struct frame_head {
  std::array<char, max_server_frame_head> bytes{};
  std::uint8_t size = 0;

  std::string_view view() const noexcept { return {bytes.data(), size}; }
};

/// The head of a frame of `op` carrying `length` payload bytes: FIN unless
/// `fin` is false (a fragment: the next ones are opcode::continuation), RSV1
/// when `compressed` (the first frame of a permessage-deflate message).
constexpr frame_head make_frame_head(opcode op, std::uint64_t length, bool fin = true,
                                     bool compressed = false) noexcept {
  frame_head h;
  h.bytes[0] = static_cast<char>((fin ? 0x80 : 0) | (compressed ? 0x40 : 0) | static_cast<std::uint8_t>(op));
  h.size = static_cast<std::uint8_t>(frame_head_size(length));
  const std::size_t extended = h.size - 2u;
  h.bytes[1] = static_cast<char>(extended == 0 ? length : extended == 2 ? 126 : 127);
  for (std::size_t i = 0; i < extended; ++i) {
    h.bytes[2 + i] = static_cast<char>((length >> (8 * (extended - 1 - i))) & 0xff);
  }
  return h;
}

/// A whole control frame: head and up to 125 payload bytes.
struct control_frame {
  std::array<char, 2 + max_control_payload> bytes{};
  std::uint8_t size = 0;

  std::string_view view() const noexcept { return {bytes.data(), size}; }
};

/// A close frame with `code` and `reason` (cut to 123 bytes, at a UTF-8
/// character boundary). A code no endpoint may send (1005, 1006, 1015, or
/// outside is_valid_close_code()) gives an empty close frame, which means "no
/// status": the answer to a close frame that had none.
control_frame make_close_frame(std::uint16_t code, std::string_view reason = {}) noexcept;
inline control_frame make_close_frame(close_code code, std::string_view reason = {}) noexcept {
  return make_close_frame(static_cast<std::uint16_t>(code), reason);
}

/// A ping carrying `payload` (cut to 125 bytes).
control_frame make_ping_frame(std::string_view payload = {}) noexcept;

/// A pong carrying `payload` (cut to 125 bytes): the answer to a ping is a
/// pong with the ping's payload.
control_frame make_pong_frame(std::string_view payload = {}) noexcept;

/// A complete, unfragmented frame of `op` around `payload` (already
/// compressed when `compressed`), built once into an immutable buffer that
/// any number of connections may queue and write without copying.
/// @throws std::bad_alloc
std::shared_ptr<const std::string> make_shared_frame(opcode op, std::string_view payload, bool compressed = false);

}  // namespace stet::detail::ws
