#pragma once
// permessage-deflate negotiation (RFC 7692 5 and 7.1): the client's offers in
// Sec-WebSocket-Extensions, the server's preferences, and the agreed parameters
// with the answer's extension string.

#include <stet/headers.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace stet::detail::ws {

/// One permessage-deflate offer as the client sent it.
struct deflate_offer {
  bool server_no_context_takeover = false;
  bool client_no_context_takeover = false;
  std::uint8_t server_max_window_bits = 0;        ///< 8-15, 0 when absent
  bool client_max_window_bits = false;            ///< the parameter is present (with or without a value)
  std::uint8_t client_max_window_bits_value = 0;  ///< 8-15, 0 when absent or without a value
};

/// The offer in one element of Sec-WebSocket-Extensions ("permessage-deflate;
/// client_max_window_bits"), or nullopt when the element is another extension
/// or an offer RFC 7692 7 says to decline: an unknown or repeated parameter, a
/// value where none belongs, a window size that is not 8-15 (quoted or not).
std::optional<deflate_offer> parse_deflate_offer(std::string_view element) noexcept;

/// The server's side. Off by default; window sizes are clamped to 9-15 (zlib's
/// raw deflate has no 256-byte window, so an offer that insists on
/// server_max_window_bits=8 is declined).
struct deflate_settings {
  bool enabled = false;
  /// Compress each message on its own (a compressor needs no memory between
  /// messages, so it can be borrowed per send, at some cost in ratio).
  bool server_no_context_takeover = false;
  /// Ask the client to compress each message on its own.
  bool client_no_context_takeover = false;
  /// The compressor's window (bytes = 2^bits); lower when the client asks.
  std::uint8_t server_max_window_bits = 15;
  /// The client's window, asked for when its offer allows (client_max_window_bits).
  std::uint8_t client_max_window_bits = 15;
  int level = 6;      ///< zlib compression level, 1-9
  int mem_level = 8;  ///< zlib memLevel, 1-9: the compressor's hash memory (2^(mem_level+9) bytes)
};

/// The agreed parameters, both directions.
struct deflate_params {
  bool server_no_context_takeover = false;
  bool client_no_context_takeover = false;
  std::uint8_t server_max_window_bits = 15;  ///< our compressor's window
  std::uint8_t client_max_window_bits = 15;  ///< the client's compressor's, so our decompressor's
};

/// The agreement and the Sec-WebSocket-Extensions value that answers it.
struct deflate_agreement {
  deflate_params params;
  std::array<char, 128> text{};
  std::uint8_t text_size = 0;

  /// The answer's Sec-WebSocket-Extensions value, e.g. "permessage-deflate; client_max_window_bits=12".
  std::string_view response() const noexcept { return {text.data(), text_size}; }
};

/// Accepts `offer` under `settings`, or nullopt when the server cannot honour
/// it. Server_no_context_takeover is answered when offered or preferred;
/// client_no_context_takeover when preferred; server_max_window_bits as the
/// smaller of the offer's and the preference (answered whenever below 15 or
/// offered); client_max_window_bits only when offered, as the smaller of the
/// offer's value and the preference, answered when below 15.
std::optional<deflate_agreement> accept_deflate_offer(const deflate_offer& offer,
                                                      const deflate_settings& settings) noexcept;

/// Negotiates over every Sec-WebSocket-Extensions field of a request: the
/// first permessage-deflate offer that can be accepted, in the client's order.
/// nullopt when deflate is not enabled or nothing acceptable was offered (the
/// answer then carries no Sec-WebSocket-Extensions).
std::optional<deflate_agreement> negotiate_deflate(std::span<const header_field> fields,
                                                   const deflate_settings& settings) noexcept;

}  // namespace stet::detail::ws
