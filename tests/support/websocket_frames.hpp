#pragma once
// What the WebSocket tests, the fuzz targets and the benchmarks share: the one
// encoder of client frames, written from RFC 6455 5.2 on its own (not with the
// library's writer, so the two cannot agree on a mistake), and a driver that
// feeds a message_reader a byte stream cut into reads the way a connection
// would, recording the events as values. The client over a socket is
// support/ws_client.hpp.

#include "websocket/message_reader.hpp"
#include "websocket/protocol.hpp"

#include <array>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace stet::test::ws {

using stet::detail::ws::close_code;
using stet::detail::ws::message_reader;
using stet::detail::ws::opcode;

inline constexpr std::array<std::uint8_t, 4> default_mask = {0x37, 0xfa, 0x21, 0x3d};  // RFC 6455 5.7's

/// How a frame's length is written: the shortest form, or a forced 16- or
/// 64-bit one (non-minimal for short payloads).
enum class length_form { minimal, bits16, bits64 };

/// A client frame: `first` is the first byte (FIN, RSV and opcode bits as
/// sent), then the length, the mask (none when `mask` is nullopt) and the
/// payload masked with it.
inline std::string frame_bytes(std::uint8_t first, std::string_view payload,
                               std::optional<std::array<std::uint8_t, 4>> mask = default_mask,
                               length_form form = length_form::minimal) {
  std::string out(1, static_cast<char>(first));
  const std::uint64_t n = payload.size();
  const std::uint8_t mask_bit = mask ? 0x80 : 0;
  std::size_t extended = 0;
  if (form == length_form::bits64 || (form == length_form::minimal && n > 0xffff)) {
    out.push_back(static_cast<char>(mask_bit | 127));
    extended = 8;
  } else if (form == length_form::bits16 || (form == length_form::minimal && n >= 126)) {
    out.push_back(static_cast<char>(mask_bit | 126));
    extended = 2;
  } else {
    out.push_back(static_cast<char>(mask_bit | n));
  }
  for (std::size_t i = extended; i-- > 0;) out.push_back(static_cast<char>((n >> (8 * i)) & 0xff));
  if (mask) out.append(reinterpret_cast<const char*>(mask->data()), 4);
  for (std::size_t i = 0; i < payload.size(); ++i) {
    out.push_back(static_cast<char>(payload[i] ^ (mask ? static_cast<char>((*mask)[i % 4]) : 0)));
  }
  return out;
}

/// A masked client frame of `op` with the shortest length, FIN set unless
/// `fin` is false (RSV bits or no mask: frame_bytes()).
inline std::string client_frame(opcode op, std::string_view payload, bool fin = true) {
  return frame_bytes(static_cast<std::uint8_t>((fin ? 0x80 : 0) | static_cast<std::uint8_t>(op)), payload);
}

/// A close frame's payload: the code, big-endian, and the reason.
inline std::string close_payload(std::uint16_t code, std::string_view reason = {}) {
  std::string p{static_cast<char>(code >> 8), static_cast<char>(code & 0xff)};
  p.append(reason);
  return p;
}

/// One event as a value.
struct event_record {
  message_reader::event what = message_reader::event::need_more;
  opcode op = opcode::binary;  // message only
  std::string payload;         // message/ping/pong payload, close reason
  std::uint16_t code = 0;      // close, failed
  std::size_t end = 0;         // stream offset just past the event's frame (0 for failed: it may vary)
  bool operator==(const event_record&) const = default;
};

inline std::string describe(const std::vector<event_record>& events) {
  std::string out;
  for (const event_record& e : events) {
    out += std::to_string(static_cast<int>(e.what)) + "/" + std::to_string(static_cast<int>(e.op)) + "/" +
           std::to_string(e.payload.size()) + "b/" + std::to_string(e.code) + "@" + std::to_string(e.end) + "; ";
  }
  return out;
}

/// The sizes of `total` bytes cut into reads of `size` bytes (the last one shorter).
inline std::vector<std::size_t> even_pieces(std::size_t total, std::size_t size) {
  std::vector<std::size_t> out;
  for (std::size_t at = 0; at < total; at += size) out.push_back(std::min(size, total - at));
  return out;
}

/// Feeds `stream` to `reader` in reads of `pieces` bytes, as a connection
/// would: unconsumed bytes stay at the front and the next read is appended.
/// Every feed() sees a buffer of exactly the unconsumed bytes (a fresh heap
/// block, so a sanitizer catches any read past them). Stops at the first
/// failure, or when the stream is used up. `check` is told of any broken
/// driver contract (consumed more than given, need_more with bytes left that
/// could have been used, no progress).
template <class Check>
std::vector<event_record> read_events(message_reader& reader, std::string_view stream,
                                      std::span<const std::size_t> pieces, Check&& check) {
  std::vector<event_record> out;
  std::string pending;
  std::size_t offset = 0;  // stream offset of pending's first byte
  std::size_t next = 0;
  std::size_t delivered = 0;
  std::size_t idle = 0;
  while (true) {
    auto exact = std::make_unique<char[]>(pending.size() + 1);
    std::memcpy(exact.get(), pending.data(), pending.size());
    const message_reader::result r = reader.feed({exact.get(), pending.size()});
    check(r.consumed <= pending.size(), "consumed no more than given");
    event_record e;
    e.what = r.what;
    if (r.what == message_reader::event::failed) {
      e.code = static_cast<std::uint16_t>(r.code);
      out.push_back(e);
      return out;
    }
    if (r.what != message_reader::event::need_more) {
      e.op = r.what == message_reader::event::message ? r.op : opcode::binary;
      e.payload.assign(r.payload);
      e.code = r.what == message_reader::event::close ? static_cast<std::uint16_t>(r.code) : 0;
      e.end = offset + r.consumed;
      out.push_back(std::move(e));
    }
    pending.erase(0, r.consumed);
    offset += r.consumed;
    if (r.what == message_reader::event::need_more) {
      check(r.wanted > 0, "need_more wants something");
      if (next == pieces.size()) return out;
      pending.append(stream.substr(delivered, pieces[next]));
      delivered += pieces[next++];
      idle = 0;
    } else {
      check(++idle <= stream.size() + 2, "the reader makes progress");
    }
  }
}

/// read_events() with a check that only records whether a contract broke.
inline std::vector<event_record> read_events(message_reader& reader, std::string_view stream,
                                             std::span<const std::size_t> pieces, bool* contract_ok = nullptr) {
  return read_events(reader, stream, pieces, [contract_ok](bool ok, const char*) {
    if (!ok && contract_ok != nullptr) *contract_ok = false;
  });
}

}  // namespace stet::test::ws
