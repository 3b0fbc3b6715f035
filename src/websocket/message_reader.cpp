#include "websocket/message_reader.hpp"

#include <algorithm>
#include <new>

namespace stet::detail::ws {

namespace {

// Compressed data may run larger than what it decompresses to: a stored
// block costs 5 bytes, and a compressor with a small memLevel ends a block
// every few hundred bytes (python3-websockets uses memLevel 5). The allowance
// is zlib's own bound for any settings (deflateBound's conservative one);
// beyond it a message's wire bytes are refused before they are decompressed.
// They are never buffered: the inflater takes them as they come.
std::uint64_t compressed_cap(std::size_t max_message_bytes) noexcept {
  const std::uint64_t n = max_message_bytes;
  return n + (n >> 3) + (n >> 6) + 1024;
}

// Without a frame limit of its own, a frame may be as large as a message's
// wire bytes may be: start_frame() holds each message to its limit, so a
// message is refused or taken alike in one frame or in fragments.
frame_rules rules_for(const reader_limits& limits, bool deflate) noexcept {
  frame_rules r;
  r.max_frame_bytes = limits.max_frame_bytes;
  if (r.max_frame_bytes == 0) {
    r.max_frame_bytes = deflate ? compressed_cap(limits.max_message_bytes) : limits.max_message_bytes;
  }
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

void message_reader::message_handled() noexcept {
  if (!delivered_) return;
  delivered_ = false;
  trim();
}

void message_reader::discard() noexcept {
  std::string().swap(message_);
  charge();
}

// Empties the assembly buffer, keeping its capacity up to retain_bytes.
void message_reader::trim() noexcept {
  message_.clear();
  if (message_.capacity() > limits_.retain_bytes) std::string().swap(message_);
  charge();
}

// Brings what this reader holds of the shared budget to the buffer's capacity
// (none while within retain_bytes); false when the budget has not that much.
bool message_reader::charge() noexcept {
  if (limits_.total_bytes == nullptr) return true;
  const std::size_t want = message_.capacity() > limits_.retain_bytes ? message_.capacity() : 0;
  std::atomic<std::size_t>& total = *limits_.total_bytes;
  if (want <= charged_) {
    total.fetch_sub(charged_ - want, std::memory_order_relaxed);
    charged_ = want;
    return true;
  }
  const std::size_t more = want - charged_;
  std::size_t now = total.load(std::memory_order_relaxed);
  do {
    if (now > limits_.max_total_bytes || more > limits_.max_total_bytes - now) return false;
  } while (!total.compare_exchange_weak(now, now + more, std::memory_order_relaxed));
  charged_ = want;
  return true;
}

// Room for `size` bytes in the assembly buffer, counted against the budget
// before it is allocated: capacity grows by half (amortised O(1) per byte,
// at most about 1.5 times the message so far), never past the message limit.
bool message_reader::grow_to(std::size_t size) {
  if (size <= message_.capacity()) return true;
  const std::size_t target = std::min(std::max(size, message_.capacity() + message_.capacity() / 2),
                                      std::max(size, limits_.max_message_bytes));
  if (limits_.total_bytes != nullptr && target > limits_.retain_bytes) {
    const std::size_t in_use = limits_.total_bytes->load(std::memory_order_relaxed);
    if (target - charged_ > limits_.max_total_bytes - std::min(in_use, limits_.max_total_bytes)) return false;
  }
  reserve_exactly(message_, target);  // std::bad_alloc: feed() fails with 1011
  return charge();
}

// How large the assembled message may grow now: max_message_bytes, or less
// when the shared budget has not room for that much.
std::size_t message_reader::output_limit() const noexcept {
  if (limits_.total_bytes == nullptr) return limits_.max_message_bytes;
  const std::size_t in_use = limits_.total_bytes->load(std::memory_order_relaxed);
  const std::size_t room = limits_.max_total_bytes - std::min(in_use, limits_.max_total_bytes) + charged_;
  // The inflater's buffer may reach limit + 1 bytes (to tell "over" from "at").
  return std::min(limits_.max_message_bytes, std::max(room, limits_.retain_bytes + 1) - 1);
}

// A message over `limit`: too big (1009), or over what the budget allowed (1013).
close_code message_reader::over_limit(std::size_t limit) const noexcept {
  return limit < limits_.max_message_bytes ? close_code::try_again_later : close_code::message_too_big;
}

message_reader::result message_reader::step(std::span<char> input) {
  if (delivered_) message_handled();
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
    trim();
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
  const std::size_t limit = output_limit();
  if (compressed_) {
    if (inflater_ == nullptr) {
      failure = close_code::internal_error;
      return false;
    }
    st = inflater_->inflate(piece, message_, limit);
    if (st == inflater::status::ok && !charge()) st = inflater::status::too_big;
  } else {
    // The wire cap (start_frame) already holds the payload to max_message_bytes.
    if (!grow_to(before + piece.size())) {
      failure = close_code::try_again_later;
      return false;
    }
    message_.append(piece);
  }
  failure = close_code::invalid_payload;
  if (!validate_output(before)) return false;
  switch (st) {
    case inflater::status::ok: return true;
    case inflater::status::too_big: failure = over_limit(limit); return false;
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
    const std::size_t limit = output_limit();
    inflater::status st = inflater_->finish(message_, limit);
    if (st == inflater::status::ok && !charge()) st = inflater::status::too_big;
    if (!validate_output(before)) return fail(close_code::invalid_payload, consumed);
    if (st == inflater::status::too_big) return fail(over_limit(limit), consumed);
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
  discard();  // a message the close interrupted is never completed
  r.what = event::close;
  return r;
}

// Nothing is read after a failure: the assembly buffer goes at once, not when
// the connection ends (after the close handshake, up to close_timeout later).
message_reader::result message_reader::fail(close_code code, std::size_t consumed) noexcept {
  discard();
  failure_ = code;
  result r;
  r.what = event::failed;
  r.consumed = consumed;
  r.code = code;
  return r;
}

}  // namespace stet::detail::ws
