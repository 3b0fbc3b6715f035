// Target 7: the WebSocket reader (frame heads, unmasking, assembly, UTF-8,
// close frames, permessage-deflate), fed a client byte stream cut into reads.
// Input: byte 0 picks the setup (bit 0 deflate agreed, bit 1 small limits,
// bit 2 built frames, bit 3 the decompressor resets per message); byte 1 says
// how many cut-plan bytes follow (0-15), as in support/splits.hpp; the rest is
// the stream, or with bit 2 a list of frames to build ([first byte][length]
// [payload]: masked unless the length byte's top bit is set, length 0-126 or, for 127, a 2-byte length; with deflate
// and RSV1 the payload is compressed first), so that valid frames, fragments
// and compressed messages are common. Properties:
//   - the events (each message, ping, pong and close with its payload and
//     where its frame ends, or the close code of a failure) do not depend on
//     how the bytes were cut into reads;
//   - the reader keeps its contract: it consumes no more than it is given,
//     need_more always wants something, and it makes progress;
//   - what it delivers obeys the limits and RFC 6455: messages within
//     max_message_bytes, text valid UTF-8, control payloads of 125 bytes at
//     most, close codes valid;
//   - built streams of whole text/binary frames come out as those payloads;
//   - the reader never reads a byte it was not given (each feed sees a fresh
//     heap block of exactly the unconsumed bytes).

#include "support/require.hpp"
#include "support/websocket_frames.hpp"
#include "websocket/deflate_stream.hpp"
#include "websocket/message_reader.hpp"
#include "websocket/utf8.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace {

namespace ws = stet::detail::ws;
using stet::fuzz::require;
using stet::test::ws::event_record;
using event = ws::message_reader::event;

struct setup {
  bool deflate;
  bool small;
  bool built;
  bool reset_per_message;
};

ws::reader_limits limits_for(const setup& s) {
  ws::reader_limits l;
  l.max_message_bytes = s.small ? 300 : 4096;
  l.max_frame_bytes = s.small ? 200 : 2048;
  l.in_place_bytes = s.small ? 64 : 1024;
  l.retain_bytes = 512;
  return l;
}

std::vector<event_record> run(const setup& s, std::string_view stream, const std::vector<std::size_t>& pieces) {
  ws::inflater decompressor(15, s.reset_per_message);
  ws::message_reader reader(limits_for(s), s.deflate ? &decompressor : nullptr);
  return stet::test::ws::read_events(reader, stream, pieces,
                                     [&](bool ok, const char* what) { require(ok, what, stream); });
}

// What a built stream must produce when it is nothing but whole, valid text
// and binary frames within the limits: their payloads, in order.
struct built_stream {
  std::string bytes;
  std::optional<std::vector<event_record>> expected = std::vector<event_record>{};
};

void expect_simple(built_stream& out, std::uint8_t first, std::string_view payload, bool unusual,
                   const ws::reader_limits& limits) {
  const auto op = static_cast<ws::opcode>(first & 0x0f);
  const bool simple = (first & 0xf0) == 0x80 && (op == ws::opcode::text || op == ws::opcode::binary) && !unusual &&
                      payload.size() <= limits.max_frame_bytes && payload.size() <= limits.max_message_bytes &&
                      (op == ws::opcode::binary || ws::is_valid_utf8(payload));
  if (!simple || !out.expected) {
    out.expected.reset();
    return;
  }
  out.expected->push_back({event::message, op, std::string(payload), 0, out.bytes.size()});
}

built_stream build(const setup& s, std::string_view spec) {
  built_stream out;
  ws::deflater compressor(15, 1, 8, s.reset_per_message);
  const ws::reader_limits limits = limits_for(s);
  while (spec.size() >= 2) {
    const auto first = static_cast<std::uint8_t>(spec[0]);
    const bool masked = (static_cast<unsigned char>(spec[1]) & 0x80) == 0;
    std::size_t length = static_cast<unsigned char>(spec[1]) & 0x7f;
    spec.remove_prefix(2);
    if (length == 127 && spec.size() >= 2) {
      length = (std::size_t{static_cast<unsigned char>(spec[0])} << 8) | static_cast<unsigned char>(spec[1]);
      spec.remove_prefix(2);
    }
    const std::string_view payload = spec.substr(0, length);
    spec.remove_prefix(payload.size());
    std::string compressed;
    const bool compress = s.deflate && (first & 0x40) != 0 && compressor.compress(payload, compressed);
    const std::optional<std::array<std::uint8_t, 4>> mask =
        masked ? std::optional(stet::test::ws::default_mask) : std::nullopt;
    out.bytes += stet::test::ws::frame_bytes(first, compress ? std::string_view(compressed) : payload, mask);
    expect_simple(out, first, payload, (first & 0x40) != 0 || !masked, limits);
  }
  return out;
}

// The cut plan's sizes (each byte b a read of b + 1 bytes, repeating) over a
// stream of `total` bytes; no plan: one read.
std::vector<std::size_t> cuts(std::string_view plan, std::size_t total) {
  if (plan.empty()) return {total};
  std::vector<std::size_t> out;
  for (std::size_t i = 0, left = total; left > 0; ++i) {
    const std::size_t piece = std::min<std::size_t>(static_cast<unsigned char>(plan[i % plan.size()]) + 1u, left);
    out.push_back(piece);
    left -= piece;
  }
  return out;
}

void check_events(const std::vector<event_record>& events, const ws::reader_limits& limits, std::string_view stream) {
  for (const event_record& e : events) {
    switch (e.what) {
      case event::message:
        require(e.payload.size() <= limits.max_message_bytes, "a message is within max_message_bytes", stream);
        require(e.op != ws::opcode::text || ws::is_valid_utf8(e.payload), "a text message is UTF-8", stream);
        break;
      case event::ping:
      case event::pong: require(e.payload.size() <= 125, "a control payload is at most 125 bytes", stream); break;
      case event::close:
        require(e.code == 1005 || ws::is_valid_close_code(e.code), "a close code is valid", stream);
        require(ws::is_valid_utf8(e.payload), "a close reason is UTF-8", stream);
        break;
      case event::failed:
        require(e.code == 1002 || e.code == 1007 || e.code == 1009 || e.code == 1011, "a failure has a close code",
                stream);
        break;
      case event::need_more: require(false, "need_more is not recorded", stream); break;
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  const setup s{(data[0] & 1) != 0, (data[0] & 2) != 0, (data[0] & 4) != 0, (data[0] & 8) != 0};
  const std::size_t plan_size = std::min<std::size_t>(data[1] & 15u, size - 2);
  const std::string_view input(reinterpret_cast<const char*>(data) + 2, size - 2);
  const std::string_view plan = input.substr(0, plan_size);
  const std::string_view rest = input.substr(plan_size);

  built_stream built;
  if (s.built) {
    built = build(s, rest);
  } else {
    built.bytes.assign(rest);
    built.expected.reset();
  }
  const std::string& stream = built.bytes;
  const std::vector<event_record> whole = run(s, stream, {stream.size()});
  const std::vector<event_record> cut = run(s, stream, cuts(plan, stream.size()));
  require(cut == whole, "the events do not depend on how the bytes were cut",
          "cut: " + stet::test::ws::describe(cut) + " whole: " + stet::test::ws::describe(whole));
  check_events(whole, limits_for(s), stream);
  if (built.expected) {
    require(whole == *built.expected, "whole frames come out as their payloads",
            "got: " + stet::test::ws::describe(whole) + " expected: " + stet::test::ws::describe(*built.expected));
  }
  return 0;
}
