#pragma once
// RFC 6455's vocabulary: opcodes, close codes and the few numbers every part
// of the WebSocket code agrees on.

#include <cstddef>
#include <cstdint>

namespace stet::detail::ws {

/// A frame's opcode (RFC 6455 5.2). Other values are reserved and refused.
enum class opcode : std::uint8_t {
  continuation = 0x0,
  text = 0x1,
  binary = 0x2,
  close = 0x8,
  ping = 0x9,
  pong = 0xa,
};

/// Close, ping and pong: at most 125 payload bytes, never fragmented.
constexpr bool is_control(opcode op) noexcept { return (static_cast<std::uint8_t>(op) & 0x8) != 0; }

/// Whether `value` (the low four bits of a frame's first byte) names an opcode RFC 6455 defines.
constexpr bool is_known_opcode(std::uint8_t value) noexcept { return value <= 0x2 || (value >= 0x8 && value <= 0xa); }

/// The close codes stet sends or reports (RFC 6455 7.4.1, IANA registry).
enum class close_code : std::uint16_t {
  normal = 1000,
  going_away = 1001,
  protocol_error = 1002,
  unsupported_data = 1003,
  no_status = 1005,  ///< reported for a close frame without a payload; never sent
  abnormal = 1006,   ///< reported for a connection that ended without a close frame; never sent
  invalid_payload = 1007,
  policy_violation = 1008,
  message_too_big = 1009,
  mandatory_extension = 1010,
  internal_error = 1011,
  try_again_later = 1013,
};

/// Whether a peer may put `code` in a close frame: 1000-1003 and 1007-1014
/// (1012-1014 are IANA-registered since RFC 6455: restart, try again later,
/// bad gateway), and 3000-4999 (libraries and applications). 1004-1006 and 1015
/// are reserved and never on the wire.
constexpr bool is_valid_close_code(std::uint16_t code) noexcept {
  return (code >= 1000 && code <= 1003) || (code >= 1007 && code <= 1014) || (code >= 3000 && code <= 4999);
}

/// The largest payload of a control frame.
inline constexpr std::size_t max_control_payload = 125;

/// The longest frame head: 2 bytes, an 8-byte length and a 4-byte mask.
inline constexpr std::size_t max_frame_head = 14;

/// The longest head of a server frame (never masked).
inline constexpr std::size_t max_server_frame_head = 10;

}  // namespace stet::detail::ws
