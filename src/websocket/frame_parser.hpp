#pragma once
// RFC 6455 5.2 frame heads, decoded in place from the caller's buffer, and the
// payload that follows them unmasked in place piece by piece. Frame-local rules
// are enforced here (masking, reserved bits, opcodes, control frames, length
// encoding, the frame-size cap); message rules (fragmentation, UTF-8, message
// size) are message_reader's.

#include "websocket/protocol.hpp"
#include "websocket/unmask.hpp"

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace stet::detail::ws {

/// One frame head as sent.
struct frame_header {
  opcode op = opcode::continuation;
  bool fin = false;
  bool rsv1 = false;  ///< "compressed" on a message's first frame when permessage-deflate is on
  bool masked = false;
  std::uint8_t head_bytes = 0;  ///< 2 to 14
  mask_key mask{};
  std::uint64_t length = 0;  ///< payload bytes
};

/// What frames a reader accepts.
struct frame_rules {
  std::uint64_t max_frame_bytes = std::uint64_t{16} << 20;  ///< payload cap; over it: 1009
  bool allow_rsv1 = false;   ///< permessage-deflate negotiated: RSV1 allowed on text/binary frames
  bool require_mask = true;  ///< a server's reader: unmasked frames are a protocol error
};

/// The outcome of decoding a head from the front of some bytes.
struct header_result {
  enum class status : std::uint8_t { need_more, ok, failed };
  status what = status::need_more;
  std::size_t bytes = 0;  ///< need_more: the head's size as far as known (more than given); ok: its size
  close_code failure = close_code::protocol_error;  ///< failed: 1002, or 1009 for a frame over the cap
  frame_header header;                              ///< ok: the head
};

/// Decodes the frame head at the front of `input` (nothing is consumed: call
/// again with more bytes after need_more). A rule a prefix already breaks fails
/// at once, and the rules are checked in byte order, so the outcome does not
/// depend on how the bytes arrived. Refused (1002): RSV2/RSV3; RSV1 unless
/// allowed, and then on control and continuation frames; reserved opcodes; a
/// control frame fragmented or over 125 bytes; an unmasked frame when a mask
/// is required; a 16- or 64-bit length that fits the shorter form; a 64-bit
/// length with its top bit set. A payload over max_frame_bytes: 1009.
header_result decode_frame_header(std::string_view input, const frame_rules& rules) noexcept;

/// A frame at a time: its head, then its payload in one or more pieces.
class frame_parser {
 public:
  explicit frame_parser(const frame_rules& rules) noexcept : rules_(rules) {}

  /// Decodes the next head (valid only while !in_payload()); on ok the head's
  /// bytes are the caller's to drop and header() describes the frame.
  header_result read_header(std::string_view input) noexcept;

  /// Unmasks the frame's next `n` payload bytes in place at the front of
  /// `input` (n <= remaining(), n <= input.size()) and returns them.
  std::span<char> take(std::span<char> input, std::size_t n) noexcept;

  /// Whether a head has been read and its payload not yet all taken (an empty
  /// payload is taken too: take(input, 0)).
  bool in_payload() const noexcept { return in_payload_; }
  /// Payload bytes of the current frame not yet taken.
  std::uint64_t remaining() const noexcept { return remaining_; }
  /// The current (or last) frame's head.
  const frame_header& header() const noexcept { return header_; }

  /// Whether RSV1 is accepted from now on (set once permessage-deflate is agreed).
  void allow_rsv1(bool allow) noexcept { rules_.allow_rsv1 = allow; }
  const frame_rules& rules() const noexcept { return rules_; }

 private:
  frame_rules rules_;
  frame_header header_;
  std::uint64_t remaining_ = 0;
  std::size_t phase_ = 0;
  bool in_payload_ = false;
};

}  // namespace stet::detail::ws
