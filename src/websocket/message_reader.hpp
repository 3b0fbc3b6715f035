#pragma once
// Bytes in, WebSocket events out: frames (frame_parser) assembled into
// messages under RFC 6455's rules, text validated as UTF-8 as it arrives,
// compressed messages (RFC 7692) decompressed within the size limit, and
// control frames delivered as they come, between fragments too.
//
// The caller owns the bytes: feed() is given what has arrived and not yet been
// consumed, contiguous, and says how much of it it used. A message that is one
// frame of at most in_place_bytes (not compressed) is delivered as a view of
// its payload where it lies, unmasked in place: the reader waits, consuming
// nothing of that payload, until the whole frame is there. Fragmented, larger
// or compressed messages are assembled into the reader's own buffer.
//
// A session drives it from its read loop:
//
//   for (;;) {
//     const auto r = reader.feed({buf + begin, end - begin});
//     begin += r.consumed;
//     switch (r.what) {
//       case event::need_more: /* compact if fewer than r.wanted bytes fit after end; read */ return;
//       case event::message:   /* hand r.op, r.payload to the handler */ break;
//       case event::ping:      /* queue make_pong_frame(r.payload) */ break;
//       case event::pong:      break;
//       case event::close:     /* queue make_close_frame(r.code) (echoes; empty for 1005), then shut down */ return;
//       case event::failed:    /* queue make_close_frame(r.code), then shut down */ return;
//     }
//   }

#include "websocket/deflate_stream.hpp"
#include "websocket/frame_parser.hpp"
#include "websocket/protocol.hpp"
#include "websocket/utf8.hpp"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace stet::detail::ws {

/// What a reader accepts, and how it keeps memory.
struct reader_limits {
  /// A message's payload, decompressed; over it: 1009.
  std::size_t max_message_bytes = std::size_t{16} << 20;
  /// One frame's payload on the wire; over it: 1009. 0: what max_message_bytes
  /// allows (for a compressed message, what may inflate to it), so that one
  /// frame and fragments are held to the same limit.
  std::uint64_t max_frame_bytes = 0;
  /// Single-frame messages up to this are views of the input (at least 125):
  /// at most what the caller's buffer can hold after its unconsumed bytes.
  std::size_t in_place_bytes = std::size_t{64} << 10;
  /// Assembly buffer capacity kept between messages; more is freed as soon
  /// as the message has been handled (message_handled(), or the next feed()).
  std::size_t retain_bytes = std::size_t{64} << 10;
  /// A budget shared with other readers (null: none): the assembly buffer's
  /// capacity beyond retain_bytes is counted in *total_bytes, which is kept
  /// at most max_total_bytes; a message that needs more fails with 1013.
  std::atomic<std::size_t>* total_bytes = nullptr;
  std::size_t max_total_bytes = 0;
};

class message_reader {
 public:
  enum class event : std::uint8_t {
    need_more,  ///< every usable byte is consumed; feed more (at least `wanted`)
    message,    ///< a complete text or binary message
    ping,       ///< answer with a pong carrying the same payload
    pong,       ///< an answer to a ping (or unsolicited: a heartbeat)
    close,      ///< the peer's close frame; the reader discards whatever follows
    failed,     ///< the peer broke the protocol: close with `code`, then end the connection
  };

  struct result {
    event what = event::need_more;
    std::size_t consumed = 0;    ///< bytes of the input used; drop them once the event is handled
    std::size_t wanted = 0;      ///< need_more: bytes needed beyond the unconsumed ones before anything can happen
    opcode op = opcode::binary;  ///< message: text or binary
    std::string_view payload;    ///< message, ping, pong: the payload; close: the reason (UTF-8)
    close_code code = close_code::no_status;  ///< close: the peer's code (1005 for none); failed: the code to send
    bool in_place = false;                    ///< payload lies in the input (else in the reader's buffer)
  };

  /// A reader under `limits`; `decompressor` (owned by the caller, outliving
  /// the reader) when permessage-deflate was agreed: RSV1 is refused without
  /// it, unless `deflate` says the decompressor is lent later (set_inflater()).
  explicit message_reader(const reader_limits& limits, inflater* decompressor = nullptr, bool deflate = false) noexcept;
  message_reader(const message_reader&) = delete;
  message_reader& operator=(const message_reader&) = delete;
  ~message_reader() { discard(); }

  /// The decompressor from now on (null: none lent). It must not change
  /// while a compressed message is open (in_message()); a compressed frame
  /// that finds none fails with 1011.
  void set_inflater(inflater* decompressor) noexcept { inflater_ = decompressor; }
  inflater* current_inflater() const noexcept { return inflater_; }

  /// Reads frames from `input` (the unconsumed bytes, in order, contiguous) up
  /// to the next event. Unmasks payload bytes in place. Views in the result
  /// stay valid until the next feed() and, when in_place, while the caller
  /// keeps the input's bytes where they are. Out of memory is a failure (1011).
  /// @note The input must hold at least consumed + wanted bytes next time:
  /// wanted is at most max(14, in_place_bytes).
  result feed(std::span<char> input) noexcept;

  /// Whether the peer's close frame was delivered.
  bool closed() const noexcept { return closed_; }
  /// Whether a failed event was delivered (every later feed() repeats it).
  bool failed() const noexcept { return failure_ != close_code::no_status; }
  /// Whether a fragmented (or assembled) message is open.
  bool in_message() const noexcept { return in_message_; }
  /// Bytes of buffer the reader holds (its assembly buffer's capacity).
  std::size_t held_bytes() const noexcept { return message_.capacity(); }
  /// What it holds of the shared budget (reader_limits::total_bytes).
  std::size_t budget_bytes() const noexcept { return charged_; }

  /// The delivered message has been handled (its payload is not needed any
  /// more): the assembly buffer shrinks to retain_bytes now rather than at the
  /// next feed(), which may be long in coming (an idle peer, a full queue).
  void message_handled() noexcept;
  /// Frees the assembly buffer and gives back its budget (the connection
  /// ended; a half-assembled message is dropped). Nothing is read afterwards.
  void discard() noexcept;

 private:
  result step(std::span<char> input);
  bool start_frame(const frame_header& h, close_code& failure) noexcept;
  bool add_piece(std::string_view piece, close_code& failure);
  result end_message(std::size_t consumed);
  result whole_frame(std::span<char> payload, std::size_t consumed) noexcept;
  result control_frame(std::string_view payload, std::size_t consumed) noexcept;
  result fail(close_code code, std::size_t consumed) noexcept;
  bool validate_output(std::size_t from) noexcept;
  void trim() noexcept;
  bool grow_to(std::size_t size);
  bool charge() noexcept;
  std::size_t output_limit() const noexcept;
  close_code over_limit(std::size_t limit) const noexcept;

  reader_limits limits_;
  frame_parser frames_;
  inflater* inflater_;
  std::string message_;  // an assembled message; its capacity is kept (up to retain_bytes)
  utf8_validator utf8_;
  std::uint64_t wire_bytes_ = 0;  // payload bytes of the open message's frames so far
  std::size_t charged_ = 0;       // of *limits_.total_bytes: message_'s capacity when over retain_bytes
  opcode message_op_ = opcode::binary;
  bool in_message_ = false;
  bool compressed_ = false;
  bool whole_ = false;      // the current frame is delivered in place, in one piece
  bool delivered_ = false;  // message_ holds a delivered message: cleared at the next feed()
  bool closed_ = false;
  close_code failure_ = close_code::no_status;
};

}  // namespace stet::detail::ws
