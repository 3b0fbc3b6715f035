#pragma once
// Reads everything a server wrote on one connection: HTTP/1.1 responses
// (response_reader.hpp's rules, the same search over bodies a HEAD may have
// left out), and after a 101 the server's WebSocket frames (RFC 6455 5.2):
// unmasked, minimally sized lengths, control frames short and unfragmented,
// fragments in order, RSV1 only on a message's first frame and only when
// permessage-deflate was agreed in the 101, nothing after a close frame.

#include "support/response_reader.hpp"

#include "http/token.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace stet::fuzz {

/// What a connection's output held, when it was well framed.
struct wire_reading {
  std::vector<unsigned> statuses;  ///< final (non-1xx) statuses, 101 included, in order
  bool upgraded = false;           ///< a 101 came, then WebSocket frames
  bool close_frame = false;        ///< the frames ended with a close frame
  std::size_t frames = 0;
};

/// Why a frame stream is malformed, or nullptr when it is well formed.
inline const char* check_server_frames(std::string_view out, bool deflate, wire_reading& r) {
  bool in_message = false;
  std::size_t pos = 0;
  while (pos < out.size()) {
    if (r.close_frame) return "bytes after the close frame";
    if (out.size() - pos < 2) return "a cut frame head";
    const auto b0 = static_cast<unsigned char>(out[pos]);
    const auto b1 = static_cast<unsigned char>(out[pos + 1]);
    const unsigned opcode = b0 & 0x0fu;
    const bool fin = (b0 & 0x80u) != 0;
    const bool rsv1 = (b0 & 0x40u) != 0;
    if ((b0 & 0x30u) != 0) return "RSV2 or RSV3 set";
    if ((b1 & 0x80u) != 0) return "a masked server frame";
    std::uint64_t length = b1 & 0x7fu;
    std::size_t head = 2;
    if (length >= 126) {
      const std::size_t extra = length == 126 ? 2 : 8;
      if (out.size() - pos < 2 + extra) return "a cut extended length";
      length = 0;
      for (std::size_t i = 0; i < extra; ++i) length = (length << 8) | static_cast<unsigned char>(out[pos + 2 + i]);
      if (extra == 2 && length < 126) return "a 16-bit length below 126";
      if (extra == 8 && (length <= 0xffff || (length >> 63) != 0)) return "a 64-bit length that is not minimal";
      head += extra;
    }
    if (out.size() - pos - head < length) return "a cut frame payload";
    const std::string_view payload = out.substr(pos + head, static_cast<std::size_t>(length));
    if (opcode >= 8) {
      if (opcode > 10) return "a reserved control opcode";
      if (!fin || length > 125) return "a fragmented or long control frame";
      if (rsv1) return "RSV1 on a control frame";
      if (opcode == 8) {
        if (length == 1) return "a close frame with a one-byte payload";
        if (length >= 2) {
          const unsigned code = (static_cast<unsigned char>(payload[0]) << 8) | static_cast<unsigned char>(payload[1]);
          const bool valid =
              (code >= 1000 && code <= 1003) || (code >= 1007 && code <= 1014) || (code >= 3000 && code <= 4999);
          if (!valid) return "a close code that may not be sent";
        }
        r.close_frame = true;
      }
    } else {
      if (opcode > 2) return "a reserved data opcode";
      if (opcode == 0 && !in_message) return "a continuation outside a message";
      if (opcode != 0 && in_message) return "a new message inside a fragmented one";
      if (rsv1 && (!deflate || opcode == 0)) return "RSV1 without permessage-deflate or on a continuation";
      in_message = !fin;
    }
    ++r.frames;
    pos += head + static_cast<std::size_t>(length);
  }
  return nullptr;
}

/// Reads `out` as responses, then frames after a 101. nullopt when it is not
/// well framed; `why` then says the last reason found.
class wire_reader {
 public:
  explicit wire_reader(std::string_view out) : out_(out), dead_(out.size() + 1, false) {}

  std::optional<wire_reading> read() {
    wire_reading r;
    std::vector<unsigned> reversed;
    if (!from(0, reversed, r)) return std::nullopt;
    r.statuses.assign(reversed.rbegin(), reversed.rend());
    return r;
  }
  const char* why() const noexcept { return why_; }

 private:
  bool from(std::size_t pos, std::vector<unsigned>& reversed, wire_reading& r) {
    if (pos == out_.size()) return true;
    if (dead_[pos]) return false;
    if (const std::optional<response_head> h = read_head(out_, pos)) {
      if (h->status == 101) {
        if (upgrade_head(pos, h->body_start, r)) {
          reversed.push_back(101);
          return true;
        }
      } else {
        for (const std::size_t end : body_ends(*h)) {
          if (h->close && end != out_.size()) continue;
          if (!from(end, reversed, r)) continue;
          if (h->status >= 200) reversed.push_back(h->status);
          return true;
        }
      }
    } else {
      why_ = "not a response head";
    }
    dead_[pos] = true;
    return false;
  }

  // A 101 answers a WebSocket upgrade: Upgrade, Connection and the accept key, then frames.
  bool upgrade_head(std::size_t pos, std::size_t body_start, wire_reading& r) {
    const std::string_view head = out_.substr(pos, body_start - pos);
    const auto has = [&](std::string_view line) { return head.find(line) != std::string_view::npos; };
    if (!has("\r\nUpgrade: websocket\r\n") || !has("\r\nConnection: Upgrade\r\n") ||
        !has("\r\nSec-WebSocket-Accept: ")) {
      why_ = "a 101 without the WebSocket fields";
      return false;
    }
    const bool deflate = has("\r\nSec-WebSocket-Extensions: permessage-deflate");
    wire_reading frames;
    if (const char* bad = check_server_frames(out_.substr(body_start), deflate, frames)) {
      why_ = bad;
      return false;
    }
    r.upgraded = true;
    r.close_frame = frames.close_frame;
    r.frames = frames.frames;
    return true;
  }

  std::vector<std::size_t> body_ends(const response_head& h) const {
    std::vector<std::size_t> ends{h.body_start};
    if (h.status < 200 || h.status == 204 || h.status == 304) return ends;
    if (h.chunked) {
      if (const std::optional<std::size_t> e = chunked_end(out_, h.body_start)) ends.push_back(*e);
    } else if (h.length) {
      if (*h.length > 0 && out_.size() - h.body_start >= *h.length) ends.push_back(h.body_start + *h.length);
    } else {
      ends.push_back(out_.size());
    }
    return ends;
  }

  std::string_view out_;
  std::vector<bool> dead_;
  const char* why_ = "";
};

}  // namespace stet::fuzz
