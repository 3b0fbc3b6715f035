// Message assembly (RFC 6455 5.4-5.6, 7.4): frames to events, fragmentation
// with control frames in between, in-place delivery, UTF-8 across pieces,
// size limits and the close frame's rules. Most cases run the byte stream in
// one read, split at every byte, and one byte at a time, and expect the same
// events each way.
#include "websocket/message_reader.hpp"

#include "support/websocket_frames.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

using namespace stet::detail::ws;
using stet::test::ws::client_frame;
using stet::test::ws::close_payload;
using stet::test::ws::event_record;
using stet::test::ws::frame_bytes;
using event = message_reader::event;

reader_limits small_limits() {
  reader_limits l;
  l.max_message_bytes = 1000;
  l.max_frame_bytes = 800;
  l.in_place_bytes = 200;
  return l;
}

std::vector<event_record> read(const std::string& stream, std::vector<std::size_t> pieces,
                               const reader_limits& limits = small_limits()) {
  message_reader reader(limits);
  bool contract_ok = true;
  std::vector<event_record> events = stet::test::ws::read_events(reader, stream, pieces, &contract_ok);
  EXPECT_TRUE(contract_ok);
  return events;
}

// The events of `stream` read whole; the test fails unless every two-piece
// split and a byte-at-a-time read give the very same events.
std::vector<event_record> read_every_way(const std::string& stream, const reader_limits& limits = small_limits()) {
  const std::vector<event_record> whole = read(stream, {stream.size()}, limits);
  for (std::size_t cut = 1; cut < stream.size(); ++cut) {
    EXPECT_EQ(read(stream, {cut, stream.size() - cut}, limits), whole)
        << "split at " << cut << ": " << stet::test::ws::describe(whole);
  }
  EXPECT_EQ(read(stream, stet::test::ws::even_pieces(stream.size(), 1), limits), whole);
  return whole;
}

event_record message(opcode op, std::string payload, std::size_t end) {
  return {event::message, op, std::move(payload), 0, end};
}
event_record control(event what, std::string payload, std::size_t end, std::uint16_t code = 0) {
  return {what, opcode::binary, std::move(payload), code, end};
}
event_record failure(close_code code) {
  return {event::failed, opcode::binary, {}, static_cast<std::uint16_t>(code), 0};
}

TEST(WebsocketMessage, DeliversEachKindOfFrame) {
  const std::string text = client_frame(opcode::text, "Hello");
  const std::string binary = client_frame(opcode::binary, std::string("\x00\xff\x10", 3));
  const std::string ping = client_frame(opcode::ping, "p1");
  const std::string pong = client_frame(opcode::pong, "");
  const std::string close = client_frame(opcode::close, close_payload(1000, "bye"));
  const std::string stream = text + binary + ping + pong + close;
  std::size_t at = 0;
  const std::vector<event_record> expected = {
      message(opcode::text, "Hello", at += text.size()),
      message(opcode::binary, std::string("\x00\xff\x10", 3), at += binary.size()),
      control(event::ping, "p1", at += ping.size()),
      control(event::pong, "", at += pong.size()),
      control(event::close, "bye", at += close.size(), 1000),
  };
  EXPECT_EQ(read_every_way(stream), expected);
}

TEST(WebsocketMessage, DeliversPayloadLengthsAroundEachEncoding) {
  reader_limits limits;
  limits.max_message_bytes = limits.max_frame_bytes = 70000;
  limits.in_place_bytes = 70000;
  for (std::size_t n : {0, 1, 125, 126, 127, 65535, 65536, 65537}) {
    std::string payload(n, '\0');
    for (std::size_t i = 0; i < n; ++i) payload[i] = static_cast<char>('a' + i % 26);
    const std::string frame = client_frame(opcode::text, payload);
    for (std::size_t piece : {frame.size(), std::size_t{1000}, std::size_t{7}}) {
      EXPECT_EQ(read(frame, stet::test::ws::even_pieces(frame.size(), piece), limits),
                std::vector<event_record>{message(opcode::text, payload, frame.size())})
          << n << " in pieces of " << piece;
    }
  }
}

TEST(WebsocketMessage, SingleFrameMessageIsAViewOfTheInputUnmaskedInPlace) {
  std::string frame = client_frame(opcode::binary, "in place");
  message_reader reader(small_limits());
  const message_reader::result r = reader.feed(frame);
  ASSERT_EQ(r.what, event::message);
  EXPECT_TRUE(r.in_place);
  EXPECT_EQ(r.payload, "in place");
  EXPECT_EQ(r.payload.data(), frame.data() + 6);
  EXPECT_EQ(r.consumed, frame.size());
}

TEST(WebsocketMessage, WaitsForTheWholeOfAnInPlaceFrame) {
  std::string frame = client_frame(opcode::text, std::string(150, 'x'));
  message_reader reader(small_limits());
  std::string first = frame.substr(0, 50);
  const message_reader::result r = reader.feed(first);
  EXPECT_EQ(r.what, event::need_more);
  EXPECT_EQ(r.consumed, 8u);  // the head
  EXPECT_EQ(r.wanted, 108u);  // the rest of the payload, beyond the 42 bytes given
  std::string rest = frame.substr(8);
  const message_reader::result done = reader.feed(rest);
  ASSERT_EQ(done.what, event::message);
  EXPECT_TRUE(done.in_place);
  EXPECT_EQ(done.payload, std::string(150, 'x'));
}

TEST(WebsocketMessage, LargerSingleFrameIsAssembledAsItArrives) {
  const std::string payload(500, 'y');  // over in_place_bytes (200)
  const std::string frame = client_frame(opcode::text, payload);
  message_reader reader(small_limits());
  std::string first = frame.substr(0, 100);
  const message_reader::result r = reader.feed(first);
  EXPECT_EQ(r.what, event::need_more);
  EXPECT_EQ(r.consumed, 100u);  // everything: the payload is copied out as it comes
  std::string rest = frame.substr(100);
  const message_reader::result done = reader.feed(rest);
  ASSERT_EQ(done.what, event::message);
  EXPECT_FALSE(done.in_place);
  EXPECT_EQ(done.payload, payload);
  EXPECT_EQ(read_every_way(frame), std::vector<event_record>{message(opcode::text, payload, frame.size())});
}

TEST(WebsocketMessage, AssemblesFragmentsWithControlFramesBetween) {
  const std::string f1 = client_frame(opcode::text, "Hel", false);
  const std::string ping = client_frame(opcode::ping, "are you there");
  const std::string f2 = client_frame(opcode::continuation, "lo, ", false);
  const std::string pong = client_frame(opcode::pong, "yes");
  const std::string f3 = client_frame(opcode::continuation, "", false);
  const std::string f4 = client_frame(opcode::continuation, "world");
  const std::string after = client_frame(opcode::binary, "next");
  const std::string stream = f1 + ping + f2 + pong + f3 + f4 + after;
  const std::size_t ping_end = f1.size() + ping.size();
  const std::size_t pong_end = ping_end + f2.size() + pong.size();
  const std::vector<event_record> expected = {
      control(event::ping, "are you there", ping_end),
      control(event::pong, "yes", pong_end),
      message(opcode::text, "Hello, world", pong_end + f3.size() + f4.size()),
      message(opcode::binary, "next", stream.size()),
  };
  EXPECT_EQ(read_every_way(stream), expected);
}

TEST(WebsocketMessage, CloseBetweenFragmentsIsDeliveredAndEndsReading) {
  const std::string stream = client_frame(opcode::binary, "part", false) +
                             client_frame(opcode::close, close_payload(1001)) +
                             client_frame(opcode::continuation, "ignored");
  const std::size_t close_end = stream.size() - client_frame(opcode::continuation, "ignored").size();
  EXPECT_EQ(read_every_way(stream), std::vector<event_record>{control(event::close, "", close_end, 1001)});
}

TEST(WebsocketMessage, RefusesContinuationWithoutAStart) {
  EXPECT_EQ(read_every_way(client_frame(opcode::continuation, "x")),
            std::vector<event_record>{failure(close_code::protocol_error)});
  // ...including after a message that has ended.
  const std::string stream = client_frame(opcode::text, "done") + client_frame(opcode::continuation, "x");
  const std::vector<event_record> events = read_every_way(stream);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[1], failure(close_code::protocol_error));
}

TEST(WebsocketMessage, RefusesANewDataFrameInsideAFragmentedMessage) {
  for (opcode op : {opcode::text, opcode::binary}) {
    const std::string stream = client_frame(opcode::text, "a", false) + client_frame(op, "b");
    EXPECT_EQ(read_every_way(stream), std::vector<event_record>{failure(close_code::protocol_error)});
  }
}

TEST(WebsocketMessage, RefusesFrameLevelViolationsWith1002) {
  const std::vector<std::string> streams = {
      frame_bytes(0x81, "unmasked", std::nullopt),
      frame_bytes(0x83, ""),                              // reserved opcode
      frame_bytes(0xc1, "x"),                             // RSV1 without deflate
      frame_bytes(0x09, ""),                              // fragmented ping
      client_frame(opcode::ping, std::string(126, 'p')),  // long ping
  };
  for (const std::string& s : streams) {
    EXPECT_EQ(read_every_way(s), std::vector<event_record>{failure(close_code::protocol_error)});
  }
}

TEST(WebsocketMessage, RefusesOversizeMessagesWith1009) {
  // One frame over max_frame_bytes (800), one message over max_message_bytes
  // (1000) in fragments each under the frame cap, and an in-place-sized frame
  // with a small message limit.
  EXPECT_EQ(read_every_way(client_frame(opcode::binary, std::string(801, 'x'))),
            std::vector<event_record>{failure(close_code::message_too_big)});
  const std::string fragments = client_frame(opcode::binary, std::string(600, 'x'), false) +
                                client_frame(opcode::continuation, std::string(401, 'x'));
  EXPECT_EQ(read(fragments, {fragments.size()}), std::vector<event_record>{failure(close_code::message_too_big)});
  const std::string exactly = client_frame(opcode::binary, std::string(600, 'x'), false) +
                              client_frame(opcode::continuation, std::string(400, 'x'));
  EXPECT_EQ(read(exactly, {exactly.size()}),
            std::vector<event_record>{message(opcode::binary, std::string(1000, 'x'), exactly.size())});
  reader_limits tiny = small_limits();
  tiny.max_message_bytes = 10;
  EXPECT_EQ(read(client_frame(opcode::text, std::string(11, 'x')), {17}, tiny),
            std::vector<event_record>{failure(close_code::message_too_big)});
}

TEST(WebsocketMessage, ValidatesTextAcrossFragmentsAndPieces) {
  // "€" (E2 82 AC) and "😀" (F0 9F 98 80) cut between every pair of their bytes.
  const std::string euro = "\xe2\x82\xac";
  const std::string grin = "\xf0\x9f\x98\x80";
  for (const std::string& ch : {euro, grin}) {
    for (std::size_t cut = 1; cut < ch.size(); ++cut) {
      const std::string stream = client_frame(opcode::text, "a" + ch.substr(0, cut), false) +
                                 client_frame(opcode::continuation, ch.substr(cut) + "b");
      EXPECT_EQ(read_every_way(stream),
                std::vector<event_record>{message(opcode::text, "a" + ch + "b", stream.size())});
    }
  }
}

TEST(WebsocketMessage, RefusesInvalidTextWith1007) {
  const std::vector<std::string> streams = {
      client_frame(opcode::text, "\xc0\xaf"),                                                           // overlong '/'
      client_frame(opcode::text, "ok\xed\xa0\x80"),                                                     // a surrogate
      client_frame(opcode::text, "a", false) + client_frame(opcode::continuation, "\xf4\x90\x80\x80"),  // > U+10FFFF
      // Invalid only once the fragments are joined: E2 then a non-continuation.
      client_frame(opcode::text, "x\xe2", false) + client_frame(opcode::continuation, "(z"),
      // Cut short at the message's end.
      client_frame(opcode::text, "x\xf0\x9f", false) + client_frame(opcode::continuation, "\x98"),
      client_frame(opcode::text, "\xe2\x82"),
      client_frame(opcode::text, std::string(300, 'a') + "\xe2\x82"),  // assembled, not in place
  };
  for (const std::string& s : streams) {
    EXPECT_EQ(read_every_way(s), std::vector<event_record>{failure(close_code::invalid_payload)});
  }
  // Binary messages are not text.
  const std::string binary = client_frame(opcode::binary, "\xc0\xaf");
  EXPECT_EQ(read_every_way(binary), std::vector<event_record>{message(opcode::binary, "\xc0\xaf", binary.size())});
}

TEST(WebsocketMessage, InvalidTextFailsBeforeTheMessageEnds) {
  // An assembled message is checked as it arrives: the failure comes with the
  // bad bytes, not after the rest of the (possibly huge) message.
  const std::string stream = client_frame(opcode::text, "\xff" + std::string(499, 'a'));
  message_reader reader(small_limits());
  std::string first = stream.substr(0, 20);
  const message_reader::result r = reader.feed(first);
  EXPECT_EQ(r.what, event::failed);
  EXPECT_EQ(r.code, close_code::invalid_payload);
  EXPECT_TRUE(reader.failed());
  std::string more = stream.substr(20);
  EXPECT_EQ(reader.feed(more).what, event::failed);  // and it stays failed
}

TEST(WebsocketMessage, CloseCodesFollowRfc6455) {
  for (std::uint16_t code :
       {1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 1012, 1013, 1014, 3000, 3999, 4000, 4999}) {
    const std::string frame = client_frame(opcode::close, close_payload(code, "why"));
    EXPECT_EQ(read_every_way(frame), std::vector<event_record>{control(event::close, "why", frame.size(), code)})
        << code;
  }
  for (std::uint16_t code : {0, 999, 1004, 1005, 1006, 1015, 1016, 1100, 2000, 2999, 5000, 65535}) {
    EXPECT_EQ(read_every_way(client_frame(opcode::close, close_payload(code))),
              std::vector<event_record>{failure(close_code::protocol_error)})
        << code;
  }
}

TEST(WebsocketMessage, ClosePayloadIsEmptyOrACodeAndAUtf8Reason) {
  const std::string empty = client_frame(opcode::close, "");
  EXPECT_EQ(read_every_way(empty),
            std::vector<event_record>{control(event::close, "", empty.size(), static_cast<std::uint16_t>(1005))});
  EXPECT_EQ(read_every_way(client_frame(opcode::close, "\x03")),
            std::vector<event_record>{failure(close_code::protocol_error)});
  EXPECT_EQ(read_every_way(client_frame(opcode::close, close_payload(1000, "\xe2\x82"))),
            std::vector<event_record>{failure(close_code::invalid_payload)});
  const std::string longest = client_frame(opcode::close, close_payload(1000, std::string(123, 'r')));
  EXPECT_EQ(read_every_way(longest),
            std::vector<event_record>{control(event::close, std::string(123, 'r'), longest.size(), 1000)});
}

TEST(WebsocketMessage, DiscardsEverythingAfterClose) {
  message_reader reader(small_limits());
  std::string stream = client_frame(opcode::close, close_payload(1000)) + client_frame(opcode::text, "late") + "junk";
  const message_reader::result close = reader.feed(stream);
  ASSERT_EQ(close.what, event::close);
  EXPECT_TRUE(reader.closed());
  std::span<char> rest(stream.data() + close.consumed, stream.size() - close.consumed);
  const message_reader::result after = reader.feed(rest);
  EXPECT_EQ(after.what, event::need_more);
  EXPECT_EQ(after.consumed, rest.size());
}

TEST(WebsocketMessage, AssemblyBufferIsReusedAndTrimmed) {
  reader_limits limits = small_limits();
  limits.max_message_bytes = limits.max_frame_bytes = 1 << 20;
  limits.retain_bytes = 4096;
  message_reader reader(limits);
  const std::string big = client_frame(opcode::binary, std::string(100000, 'b'));
  const std::string small = client_frame(opcode::binary, "a", false) + client_frame(opcode::continuation, "b");
  for (int round = 0; round < 3; ++round) {
    std::string a = big;
    ASSERT_EQ(reader.feed(a).payload.size(), 100000u);
    std::string b = small;
    const message_reader::result r = reader.feed(b);
    ASSERT_EQ(r.what, event::message);
    EXPECT_EQ(r.payload, "ab");
    EXPECT_FALSE(r.in_place);
  }
}

}  // namespace
