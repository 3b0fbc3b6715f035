#include "websocket/frame_writer.hpp"

#include <algorithm>
#include <cstring>

namespace stet::detail::ws {

namespace {

control_frame make_control(opcode op, std::string_view payload) noexcept {
  control_frame f;
  payload = payload.substr(0, max_control_payload);
  f.bytes[0] = static_cast<char>(0x80 | static_cast<std::uint8_t>(op));
  f.bytes[1] = static_cast<char>(payload.size());
  // An empty view may have no data pointer, and memcpy's may not be null even for 0 bytes.
  if (!payload.empty()) std::memcpy(f.bytes.data() + 2, payload.data(), payload.size());
  f.size = static_cast<std::uint8_t>(2 + payload.size());
  return f;
}

// `text` cut to at most `max` bytes without splitting a UTF-8 sequence: the
// cut moves back over continuation bytes (10xxxxxx) to a character's start.
std::string_view cut_utf8(std::string_view text, std::size_t max) noexcept {
  if (text.size() <= max) return text;
  std::size_t end = max;
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xc0) == 0x80) --end;
  return text.substr(0, end);
}

}  // namespace

control_frame make_close_frame(std::uint16_t code, std::string_view reason) noexcept {
  if (!is_valid_close_code(code)) return make_control(opcode::close, {});
  std::array<char, max_control_payload> payload{};
  payload[0] = static_cast<char>(code >> 8);
  payload[1] = static_cast<char>(code & 0xff);
  reason = cut_utf8(reason, max_control_payload - 2);
  if (!reason.empty()) std::memcpy(payload.data() + 2, reason.data(), reason.size());
  return make_control(opcode::close, {payload.data(), 2 + reason.size()});
}

control_frame make_ping_frame(std::string_view payload) noexcept { return make_control(opcode::ping, payload); }

control_frame make_pong_frame(std::string_view payload) noexcept { return make_control(opcode::pong, payload); }

std::shared_ptr<const std::string> make_shared_frame(opcode op, std::string_view payload, bool compressed) {
  const frame_head head = make_frame_head(op, payload.size(), true, compressed);
  auto frame = std::make_shared<std::string>();
  frame->reserve(head.size + payload.size());
  frame->append(head.view());
  frame->append(payload);
  return frame;
}

}  // namespace stet::detail::ws
