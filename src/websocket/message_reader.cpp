#include "websocket/message_reader.hpp"

#include <algorithm>
#include <new>

namespace stet::detail::ws {

namespace {

frame_rules rules_for(const reader_limits& limits, bool deflate) noexcept {
  frame_rules r;
  r.max_frame_bytes = limits.max_frame_bytes;
  r.allow_rsv1 = deflate;
  r.require_mask = true;
  return r;
}

std::string_view view(std::span<const char> s) noexcept { return {s.data(), s.size()}; }

message_reader::result need(std::size_t consumed, std::size_t wanted) noexcept {
  message_reader::result r;
  r.consumed = consumed;
  r.wanted = wanted;
  return r;
}

// Compressed data may run a little larger than what it decompresses to
// (stored blocks cost 5 bytes per 64 KiB); beyond that allowance a message's
// wire bytes are refused before they are decompressed.
std::uint64_t compressed_cap(std::size_t max_message_bytes) noexcept {
  return std::uint64_t{max_message_bytes} + max_message_bytes / 1024 + 1024;
}

}  // namespace

message_reader::message_reader(const reader_limits& limits, inflater* decompressor, bool deflate) noexcept
    : limits_(limits), frames_(rules_for(limits, deflate || decompressor != nullptr)), inflater_(decompressor) {
  limits_.in_place_bytes = std::max(limits_.in_place_bytes, max_control_payload);
}

message_reader::result message_reader::feed(std::span<char> input) noexcept {
  try {
    return step(input);
  } catch (const std::bad_alloc&) {
    return fail(close_code::internal_error, 0);
  }
}

message_reader::result message_reader::step(std::span<char> input) {
  if (delivered_) {
    message_.clear();
    delivered_ = false;
  }
  if (failed()) return fail(failure_, 0);
  if (closed_) return need(input.size(), 1);  // nothing after a close frame means anything (RFC 6455 5.5.1)
  std::size_t used = 0;
  while (true) {
    if (!frames_.in_payload()) {
      const header_result h = frames_.read_header(view(input.subspan(used)));
      if (h.what == header_result::status::need_more) return need(used, h.bytes - (input.size() - used));
      if (h.what == header_result::status::failed) return fail(h.failure, used);
      used += h.bytes;
      close_code failure{};
      if (!start_frame(frames_.header(), failure)) return fail(failure, used);
    }
    const std::size_t available = input.size() - used;
    const std::uint64_t remaining = frames_.remaining();
    if (whole_) {
      if (available < remaining) return need(used, static_cast<std::size_t>(remaining - available));
      const std::span<char> payload = frames_.take(input.subspan(used), static_cast<std::size_t>(remaining));
      return whole_frame(payload, used + payload.size());
    }
    const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(available, remaining));
    const std::span<char> piece = frames_.take(input.subspan(used), n);
    used += n;
    close_code failure{};
    if (!add_piece(view(piece), failure)) return fail(failure, used);
    if (frames_.in_payload()) return need(used, 1);
    if (frames_.header().fin) return end_message(used);
  }
}

// The message rules a frame head brings (RFC 6455 5.4): a continuation needs
// an open message, a new text/binary frame must not come while one is open,
// and the message's size is checked as each frame announces its length.
bool message_reader::start_frame(const frame_header& h, close_code& failure) noexcept {
  failure = close_code::protocol_error;
  whole_ = is_control(h.op);
  if (whole_) return true;
  if (h.op == opcode::continuation) {
    if (!in_message_) return false;
  } else {
    if (in_message_) return false;
    message_op_ = h.op;
    compressed_ = h.rsv1;
    wire_bytes_ = 0;
    utf8_.reset();
    if (message_.capacity() > limits_.retain_bytes) std::string().swap(message_);
    // One frame, not compressed, small enough: delivered where it lies.
    whole_ = h.fin && !compressed_ && h.length <= limits_.in_place_bytes;
    in_message_ = !whole_;
  }
  wire_bytes_ += h.length;
  const std::uint64_t cap = compressed_ ? compressed_cap(limits_.max_message_bytes) : limits_.max_message_bytes;
  failure = close_code::message_too_big;
  return wire_bytes_ <= cap;
}

// UTF-8 of the assembled bytes from `from` on, never past the size limit: a
// byte beyond it is a 1009, whichever error the bytes after it would be.
bool message_reader::validate_output(std::size_t from) noexcept {
  if (message_op_ != opcode::text) return true;
  const std::size_t end = std::min(message_.size(), limits_.max_message_bytes);
  return from >= end || utf8_.feed(std::string_view(message_).substr(from, end - from));
}

bool message_reader::add_piece(std::string_view piece, close_code& failure) {
  const std::size_t before = message_.size();
  inflater::status st = inflater::status::ok;
  if (compressed_) {
    if (inflater_ == nullptr) {
      failure = close_code::internal_error;
      return false;
    }
    st = inflater_->inflate(piece, message_, limits_.max_message_bytes);
  } else {
    message_.append(piece);
  }
  failure = close_code::invalid_payload;
  if (!validate_output(before)) return false;
  switch (st) {
    case inflater::status::ok: return true;
    case inflater::status::too_big: failure = close_code::message_too_big; return false;
    case inflater::status::corrupt: failure = close_code::invalid_payload; return false;
    case inflater::status::no_memory: failure = close_code::internal_error; return false;
  }
  return false;
}

message_reader::result message_reader::end_message(std::size_t consumed) {
  close_code failure{};
  if (compressed_) {
    if (inflater_ == nullptr) return fail(close_code::internal_error, consumed);
    const std::size_t before = message_.size();
    const inflater::status st = inflater_->finish(message_, limits_.max_message_bytes);
    if (!validate_output(before)) return fail(close_code::invalid_payload, consumed);
    if (st == inflater::status::too_big) return fail(close_code::message_too_big, consumed);
    if (st != inflater::status::ok) {
      failure = st == inflater::status::corrupt ? close_code::invalid_payload : close_code::internal_error;
      return fail(failure, consumed);
    }
  }
  if (message_op_ == opcode::text && !utf8_.complete()) return fail(close_code::invalid_payload, consumed);
  in_message_ = false;
  delivered_ = true;
  result r;
  r.what = event::message;
  r.consumed = consumed;
  r.op = message_op_;
  r.payload = message_;
  return r;
}

message_reader::result message_reader::whole_frame(std::span<char> payload, std::size_t consumed) noexcept {
  const std::string_view bytes = view(payload);
  if (is_control(frames_.header().op)) return control_frame(bytes, consumed);
  if (message_op_ == opcode::text && !is_valid_utf8(bytes)) return fail(close_code::invalid_payload, consumed);
  result r;
  r.what = event::message;
  r.consumed = consumed;
  r.op = message_op_;
  r.payload = bytes;
  r.in_place = true;
  return r;
}

// RFC 6455 5.5.1: a close payload is empty or a 2-byte code and a UTF-8 reason.
message_reader::result message_reader::control_frame(std::string_view payload, std::size_t consumed) noexcept {
  result r;
  r.consumed = consumed;
  r.payload = payload;
  r.in_place = true;
  switch (frames_.header().op) {
    case opcode::ping: r.what = event::ping; return r;
    case opcode::pong: r.what = event::pong; return r;
    default: break;
  }
  if (payload.size() == 1) return fail(close_code::protocol_error, consumed);
  if (payload.size() >= 2) {
    const auto code = static_cast<std::uint16_t>((static_cast<unsigned char>(payload[0]) << 8) |
                                                 static_cast<unsigned char>(payload[1]));
    if (!is_valid_close_code(code)) return fail(close_code::protocol_error, consumed);
    r.payload = payload.substr(2);
    if (!is_valid_utf8(r.payload)) return fail(close_code::invalid_payload, consumed);
    r.code = static_cast<close_code>(code);
  }
  closed_ = true;
  r.what = event::close;
  return r;
}

message_reader::result message_reader::fail(close_code code, std::size_t consumed) noexcept {
  failure_ = code;
  result r;
  r.what = event::failed;
  r.consumed = consumed;
  r.code = code;
  return r;
}

}  // namespace stet::detail::ws
