#include "websocket/frame_parser.hpp"

#include <cstring>

namespace stet::detail::ws {

namespace {

header_result refuse(close_code code = close_code::protocol_error) noexcept {
  header_result r;
  r.what = header_result::status::failed;
  r.failure = code;
  return r;
}

header_result need(std::size_t bytes) noexcept {
  header_result r;
  r.bytes = bytes;
  return r;
}

// The first byte's rules: they need nothing else, so a bad frame is refused
// from its first byte whatever follows.
bool first_byte_ok(std::uint8_t b, const frame_rules& rules) noexcept {
  const std::uint8_t code = b & 0x0f;
  if ((b & 0x30) != 0 || !is_known_opcode(code)) return false;
  const auto op = static_cast<opcode>(code);
  const bool fin = (b & 0x80) != 0;
  if (is_control(op) && !fin) return false;
  // RFC 7692 6: RSV1 marks a compressed message, so only its first frame.
  const bool rsv1 = (b & 0x40) != 0;
  return !rsv1 || (rules.allow_rsv1 && !is_control(op) && op != opcode::continuation);
}

std::uint64_t big_endian(const unsigned char* p, std::size_t n) noexcept {
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < n; ++i) v = (v << 8) | p[i];
  return v;
}

}  // namespace

header_result decode_frame_header(std::string_view input, const frame_rules& rules) noexcept {
  if (input.empty()) return need(2);
  const auto* p = reinterpret_cast<const unsigned char*>(input.data());
  if (!first_byte_ok(p[0], rules)) return refuse();
  if (input.size() < 2) return need(2);

  header_result r;
  frame_header& h = r.header;
  h.fin = (p[0] & 0x80) != 0;
  h.rsv1 = (p[0] & 0x40) != 0;
  h.op = static_cast<opcode>(p[0] & 0x0f);
  h.masked = (p[1] & 0x80) != 0;
  const std::uint8_t length7 = p[1] & 0x7f;
  if (rules.require_mask && !h.masked) return refuse();
  if (is_control(h.op) && length7 > max_control_payload) return refuse();

  const std::size_t extended = length7 == 126 ? 2 : length7 == 127 ? 8 : 0;
  h.head_bytes = static_cast<std::uint8_t>(2 + extended + (h.masked ? 4 : 0));
  if (input.size() < 2 + extended) return need(h.head_bytes);
  h.length = extended == 0 ? length7 : big_endian(p + 2, extended);
  // RFC 6455 5.2: "the minimal number of bytes MUST be used", and a 64-bit
  // length's most significant bit MUST be 0.
  if (extended == 2 && h.length < 126) return refuse();
  if (extended == 8 && (h.length >> 63 != 0 || h.length <= 0xffff)) return refuse();
  if (h.length > rules.max_frame_bytes) return refuse(close_code::message_too_big);
  if (input.size() < h.head_bytes) return need(h.head_bytes);
  if (h.masked) std::memcpy(h.mask.data(), p + 2 + extended, h.mask.size());
  r.what = header_result::status::ok;
  r.bytes = h.head_bytes;
  return r;
}

header_result frame_parser::read_header(std::string_view input) noexcept {
  header_result r = decode_frame_header(input, rules_);
  if (r.what == header_result::status::ok) {
    header_ = r.header;
    remaining_ = header_.length;
    phase_ = 0;
    in_payload_ = true;
  }
  return r;
}

std::span<char> frame_parser::take(std::span<char> input, std::size_t n) noexcept {
  const std::span<char> piece = input.first(n);
  if (header_.masked) phase_ = unmask(piece, header_.mask, phase_);
  remaining_ -= n;
  in_payload_ = remaining_ != 0;
  return piece;
}

}  // namespace stet::detail::ws
