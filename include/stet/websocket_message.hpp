#pragma once
/// @file
/// The small vocabulary of WebSocket messages shared by routes, sockets and
/// server::publish(): message kinds, what a send did, and the close codes.

#include <cstdint>

namespace stet {

/// What a WebSocket message carries (RFC 6455 5.6).
enum class message_kind : std::uint8_t {
  text,    ///< UTF-8 text (stet checks what it receives; what you send must be UTF-8)
  binary,  ///< any bytes
};

/// What websocket::send() did with a message.
enum class send_status : std::uint8_t {
  sent,          ///< queued (or written), and the queue is within max_backpressure
  backpressure,  ///< queued, but the queue is now over max_backpressure: wait for on_drain
  dropped,       ///< not queued: the queue was over max_backpressure, or a post found the worker's mailbox full
  closed,        ///< not queued: the socket is closing or closed
  posted,        ///< sent from another thread: handed to the socket's worker, which applies the rules above
};

/// Close codes (RFC 6455 7.4.1). Applications may use 4000-4999; libraries 3000-3999.
namespace close_code {
inline constexpr std::uint16_t normal = 1000;            ///< the purpose is fulfilled
inline constexpr std::uint16_t going_away = 1001;        ///< server stopping, or an idle timeout
inline constexpr std::uint16_t protocol_error = 1002;    ///< a frame broke RFC 6455 (unmasked, reserved bits, ...)
inline constexpr std::uint16_t unsupported_data = 1003;  ///< a kind of message the endpoint cannot take
inline constexpr std::uint16_t no_status = 1005;         ///< reported: the close frame had no code (never sent)
inline constexpr std::uint16_t abnormal = 1006;          ///< reported: closed without a close handshake (never sent)
inline constexpr std::uint16_t invalid_payload = 1007;   ///< text that is not UTF-8, or a corrupt compressed message
inline constexpr std::uint16_t policy_violation = 1008;  ///< refused by the application's policy
inline constexpr std::uint16_t message_too_big = 1009;   ///< over max_message_bytes (or the frame cap)
inline constexpr std::uint16_t internal_error = 1011;    ///< a callback threw, or memory ran out
inline constexpr std::uint16_t try_again_later = 1013;   ///< over the route's max_total_message_bytes
}  // namespace close_code

}  // namespace stet
