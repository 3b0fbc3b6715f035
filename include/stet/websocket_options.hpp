#pragma once
/// @file
/// The settings of a WebSocket route (routes.websocket()): limits, timeouts,
/// back-pressure, subprotocols, origins and permessage-deflate.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace stet {

/// permessage-deflate (RFC 7692) for one WebSocket route: off by default.
/// With both no_context_takeover settings on (the default when enabled), no
/// connection keeps a zlib state between messages: each message borrows one
/// from its worker's pool, so an idle compressed connection costs no more
/// than an uncompressed one. Context takeover compresses repetitive traffic
/// better at the price of about 300 KiB (server) or 40 KiB (client) of zlib
/// memory per connection.
struct websocket_compression_options {
  /// Offer permessage-deflate to clients that ask for it.
  bool enabled = false;
  /// Compress each message on its own (the server's zlib state is borrowed per message).
  bool server_no_context_takeover = true;
  /// Ask the client to compress each message on its own (ours is then borrowed per read).
  bool client_no_context_takeover = true;
  /// Our compressor's window, 9-15 (bytes = 2^bits); lower when the client asks.
  std::uint8_t server_max_window_bits = 15;
  /// The window asked of the client when its offer allows it, 9-15.
  std::uint8_t client_max_window_bits = 15;
  /// zlib level, 1-9.
  int level = 6;
  /// zlib memLevel, 1-9: the compressor's hash memory.
  int mem_level = 8;
  /// Messages shorter than this are sent uncompressed (the RSV1 bit is per message).
  std::size_t min_bytes = 64;
};

/// The earlier name (#26: option structs are named *_options): deprecated,
/// removed in the next release.
using websocket_compression [[deprecated("renamed websocket_compression_options")]] = websocket_compression_options;

/// The settings of one WebSocket route, in the shape of uWebSockets' behaviour.
struct websocket_options {
  /// The largest message accepted, decompressed; over it the socket closes with 1009.
  std::size_t max_message_bytes = std::size_t{1} << 20;
  /// The largest frame payload on the wire; over it: 1009. 0: no limit of its
  /// own beyond max_message_bytes, which counts the payload after inflation
  /// (a compressed frame may run slightly larger than what it inflates to),
  /// so a message is refused or taken alike in one frame or in fragments.
  std::size_t max_frame_bytes = 0;
  /// The bytes every connection of this route together may hold for messages
  /// being received (assembly buffers, inflated output, an unfinished
  /// fragmented message), on all workers; 0: no such budget. A message that
  /// would take more fails its connection with 1013 (try again later): the
  /// message is within max_message_bytes, the server is short of room now.
  /// An idle connection holds none of it.
  std::size_t max_total_message_bytes = 0;
  /// Close a socket that received nothing for this long (1001; 0: never).
  std::chrono::milliseconds idle_timeout = std::chrono::seconds(120);
  /// Ping a silent socket when half of idle_timeout has passed, so that a
  /// live peer's pong keeps it open.
  bool send_pings_automatically = true;
  /// Bytes a socket's send queue may hold: over it, send() reports
  /// backpressure, later sends are dropped, and the socket stops reading (its
  /// peer is then slowed by TCP) until the queue is written.
  std::size_t max_backpressure = std::size_t{1} << 20;
  /// Close (without a close handshake: the peer is not reading) a socket
  /// whose queue is over max_backpressure when a message would be dropped.
  bool close_on_backpressure_limit = false;
  /// How long a close handshake (and the linger after it) may take before the
  /// TCP connection is closed anyway.
  std::chrono::milliseconds close_timeout = std::chrono::seconds(5);
  /// Subprotocols spoken, in no particular order: the first one the client
  /// lists that is here is chosen (case-sensitive). Empty: none is answered.
  std::vector<std::string> subprotocols{};
  /// Origins allowed ("https://example.com", case-insensitive); empty: any.
  /// A request with another Origin gets 403 (browsers always send Origin).
  std::vector<std::string> allowed_origins{};
  /// With allowed_origins: refuse requests without an Origin too.
  bool require_origin = false;
  /// permessage-deflate.
  websocket_compression_options compression{};
  /// The route's name for router::url_for(); empty for none (copied).
  std::string_view name{};
};

}  // namespace stet
