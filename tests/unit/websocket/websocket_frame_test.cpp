// Frame heads (RFC 6455 5.2) and unmasking: every opcode, every length form,
// the minimal-encoding rule, the frame-local refusals, and the mask phase
// carried across pieces.
#include "websocket/frame_parser.hpp"

#include "support/websocket_frames.hpp"
#include "websocket/unmask.hpp"

#include <gtest/gtest.h>

#include <string>

namespace {

using namespace stet::detail::ws;
using stet::test::ws::frame_bytes;
using stet::test::ws::length_form;
using status = header_result::status;

constexpr std::uint8_t fin = 0x80;

header_result decode(const std::string& bytes, frame_rules rules = {}) { return decode_frame_header(bytes, rules); }

TEST(WebsocketFrame, DecodesEveryOpcode) {
  for (opcode op : {opcode::continuation, opcode::text, opcode::binary, opcode::close, opcode::ping, opcode::pong}) {
    const header_result r = decode(frame_bytes(fin | static_cast<std::uint8_t>(op), "abc"));
    ASSERT_EQ(r.what, status::ok) << static_cast<int>(op);
    EXPECT_EQ(r.header.op, op);
    EXPECT_TRUE(r.header.fin);
    EXPECT_FALSE(r.header.rsv1);
    EXPECT_TRUE(r.header.masked);
    EXPECT_EQ(r.header.length, 3u);
    EXPECT_EQ(r.header.head_bytes, 6u);
    EXPECT_EQ(r.bytes, 6u);
    EXPECT_EQ(r.header.mask, stet::test::ws::default_mask);
  }
}

TEST(WebsocketFrame, RefusesReservedOpcodes) {
  for (std::uint8_t code : {3, 4, 5, 6, 7, 0xb, 0xc, 0xd, 0xe, 0xf}) {
    const header_result r = decode(frame_bytes(fin | code, ""));
    EXPECT_EQ(r.what, status::failed) << int{code};
    EXPECT_EQ(r.failure, close_code::protocol_error);
    // Known from the first byte alone.
    EXPECT_EQ(decode(std::string(1, static_cast<char>(fin | code))).what, status::failed);
  }
}

TEST(WebsocketFrame, DecodesEachLengthForm) {
  struct expectation {
    std::size_t length;
    std::size_t head_bytes;
  };
  for (const expectation e :
       {expectation{0, 6}, {1, 6}, {125, 6}, {126, 8}, {127, 8}, {65535, 8}, {65536, 14}, {100000, 14}}) {
    const std::string frame = frame_bytes(fin | 2, std::string(e.length, 'x'));
    const header_result r = decode(frame);
    ASSERT_EQ(r.what, status::ok) << e.length;
    EXPECT_EQ(r.header.length, e.length);
    EXPECT_EQ(r.header.head_bytes, e.head_bytes);
  }
}

TEST(WebsocketFrame, DecodesA64BitLengthWithoutThePayload) {
  // 2^40 bytes announced: only the head is needed to decode it.
  std::string head = {static_cast<char>(fin | 2), static_cast<char>(0x80 | 127), 0, 0, 1, 0, 0, 0, 0, 0, 1, 2, 3, 4};
  frame_rules rules;
  rules.max_frame_bytes = std::uint64_t{1} << 41;
  const header_result r = decode(head, rules);
  ASSERT_EQ(r.what, status::ok);
  EXPECT_EQ(r.header.length, std::uint64_t{1} << 40);
  EXPECT_EQ(r.header.head_bytes, 14u);
}

TEST(WebsocketFrame, RefusesNonMinimalLengths) {
  for (std::size_t n : {0, 1, 125}) {
    EXPECT_EQ(decode(frame_bytes(fin | 2, std::string(n, 'x'), stet::test::ws::default_mask, length_form::bits16)).what,
              status::failed)
        << n;
  }
  for (std::size_t n : {0, 125, 126, 65535}) {
    EXPECT_EQ(decode(frame_bytes(fin | 2, std::string(n, 'x'), stet::test::ws::default_mask, length_form::bits64)).what,
              status::failed)
        << n;
  }
  // The shortest forms of the same lengths are fine.
  EXPECT_EQ(decode(frame_bytes(fin | 2, std::string(126, 'x'), stet::test::ws::default_mask, length_form::bits16)).what,
            status::ok);
  EXPECT_EQ(
      decode(frame_bytes(fin | 2, std::string(65536, 'x'), stet::test::ws::default_mask, length_form::bits64)).what,
      status::ok);
}

TEST(WebsocketFrame, RefusesA64BitLengthWithTheTopBitSet) {
  std::string head = {static_cast<char>(fin | 2),
                      static_cast<char>(0x80 | 127),
                      static_cast<char>(0x80),
                      0,
                      0,
                      0,
                      0,
                      0,
                      0,
                      0,
                      1,
                      2,
                      3,
                      4};
  frame_rules rules;
  rules.max_frame_bytes = ~std::uint64_t{0};
  const header_result r = decode(head, rules);
  EXPECT_EQ(r.what, status::failed);
  EXPECT_EQ(r.failure, close_code::protocol_error);
}

TEST(WebsocketFrame, RefusesUnmaskedClientFrames) {
  const header_result r = decode(frame_bytes(fin | 1, "hi", std::nullopt));
  EXPECT_EQ(r.what, status::failed);
  EXPECT_EQ(r.failure, close_code::protocol_error);
  frame_rules client_side;
  client_side.require_mask = false;
  const header_result accepted = decode(frame_bytes(fin | 1, "hi", std::nullopt), client_side);
  ASSERT_EQ(accepted.what, status::ok);
  EXPECT_FALSE(accepted.header.masked);
  EXPECT_EQ(accepted.header.head_bytes, 2u);
}

TEST(WebsocketFrame, RefusesReservedBitsUnlessDeflateAllowsRsv1) {
  for (std::uint8_t bits : {0x40, 0x20, 0x10, 0x60, 0x70}) {
    EXPECT_EQ(decode(frame_bytes(fin | bits | 1, "x")).what, status::failed) << int{bits};
  }
  frame_rules deflate;
  deflate.allow_rsv1 = true;
  EXPECT_EQ(decode(frame_bytes(fin | 0x40 | 1, "x"), deflate).what, status::ok);
  EXPECT_EQ(decode(frame_bytes(0x40 | 2, "x"), deflate).what, status::ok);  // first fragment
  EXPECT_TRUE(decode(frame_bytes(fin | 0x40 | 1, "x"), deflate).header.rsv1);
  // RSV2/RSV3 stay refused, and RSV1 is for a message's first data frame only.
  EXPECT_EQ(decode(frame_bytes(fin | 0x20 | 1, "x"), deflate).what, status::failed);
  EXPECT_EQ(decode(frame_bytes(fin | 0x10 | 1, "x"), deflate).what, status::failed);
  EXPECT_EQ(decode(frame_bytes(fin | 0x40 | 0, "x"), deflate).what, status::failed);
  EXPECT_EQ(decode(frame_bytes(fin | 0x40 | 9, "x"), deflate).what, status::failed);
  EXPECT_EQ(decode(frame_bytes(fin | 0x40 | 8, ""), deflate).what, status::failed);
}

TEST(WebsocketFrame, RefusesFragmentedOrLongControlFrames) {
  for (std::uint8_t op : {8, 9, 10}) {
    EXPECT_EQ(decode(frame_bytes(op, "")).what, status::failed) << int{op};  // FIN clear
    EXPECT_EQ(decode(frame_bytes(fin | op, std::string(125, 'x'))).what, status::ok) << int{op};
    const header_result r = decode(frame_bytes(fin | op, std::string(126, 'x')));
    EXPECT_EQ(r.what, status::failed) << int{op};
    EXPECT_EQ(r.failure, close_code::protocol_error);
  }
}

TEST(WebsocketFrame, RefusesFramesOverTheCapWith1009) {
  frame_rules rules;
  rules.max_frame_bytes = 1000;
  EXPECT_EQ(decode(frame_bytes(fin | 2, std::string(1000, 'x')), rules).what, status::ok);
  const header_result r = decode(frame_bytes(fin | 2, std::string(1001, 'x')), rules);
  EXPECT_EQ(r.what, status::failed);
  EXPECT_EQ(r.failure, close_code::message_too_big);
}

TEST(WebsocketFrame, AsksForTheRestOfAHeadAsItLearnsItsSize) {
  const std::string frame = frame_bytes(fin | 2, std::string(70000, 'x'));
  EXPECT_EQ(decode(frame.substr(0, 0)).bytes, 2u);
  EXPECT_EQ(decode(frame.substr(0, 1)).bytes, 2u);
  for (std::size_t n = 2; n < 14; ++n) {
    const header_result r = decode(frame.substr(0, n));
    EXPECT_EQ(r.what, status::need_more) << n;
    EXPECT_EQ(r.bytes, 14u) << n;
  }
  EXPECT_EQ(decode(frame.substr(0, 14)).what, status::ok);
}

TEST(WebsocketFrame, ParserTakesThePayloadInPiecesUnmasked) {
  const std::string payload = "The quick brown fox jumps over the lazy dog";
  std::string frame = frame_bytes(fin | 1, payload);
  for (std::size_t cut = 0; cut <= payload.size(); ++cut) {
    std::string bytes = frame;
    frame_parser parser{frame_rules{}};
    const header_result h = parser.read_header(bytes);
    ASSERT_EQ(h.what, status::ok);
    ASSERT_TRUE(parser.in_payload());
    std::span<char> rest(bytes.data() + h.bytes, payload.size());
    const std::span<char> first = parser.take(rest, cut);
    const std::span<char> second = parser.take(rest.subspan(cut), payload.size() - cut);
    EXPECT_FALSE(parser.in_payload());
    EXPECT_EQ(std::string(first.data(), first.size()) + std::string(second.data(), second.size()), payload) << cut;
  }
}

TEST(WebsocketFrame, EmptyPayloadIsTakenToo) {
  std::string bytes = frame_bytes(fin | 9, "");
  frame_parser parser{frame_rules{}};
  ASSERT_EQ(parser.read_header(bytes).what, status::ok);
  EXPECT_TRUE(parser.in_payload());
  EXPECT_TRUE(parser.take({bytes.data() + 6, 0}, 0).empty());
  EXPECT_FALSE(parser.in_payload());
}

// Every alignment of the data, every starting phase, every length up to 80:
// the word loop, its head and its tail against a byte-by-byte XOR.
TEST(WebsocketUnmask, MatchesBytewiseXorAtEveryAlignmentAndPhase) {
  const mask_key key = {0x12, 0x34, 0x56, 0x78};
  alignas(16) char storage[128];
  for (std::size_t align = 0; align < 8; ++align) {
    for (std::size_t phase = 0; phase < 4; ++phase) {
      for (std::size_t n = 0; n <= 80; ++n) {
        for (std::size_t i = 0; i < n; ++i) storage[align + i] = static_cast<char>(i * 7 + 1);
        const std::size_t next = unmask({storage + align, n}, key, phase);
        EXPECT_EQ(next, (phase + n) % 4);
        for (std::size_t i = 0; i < n; ++i) {
          ASSERT_EQ(storage[align + i], static_cast<char>((i * 7 + 1) ^ key[(phase + i) % 4]))
              << align << "/" << phase << "/" << n << "/" << i;
        }
      }
    }
  }
}

TEST(WebsocketUnmask, PhaseCarriesAcrossPieces) {
  const mask_key key = {0xa1, 0xb2, 0xc3, 0xd4};
  std::string whole(1000, '\0');
  for (std::size_t i = 0; i < whole.size(); ++i) whole[i] = static_cast<char>(i);
  std::string reference = whole;
  unmask(reference, key, 0);
  for (std::size_t piece : {1, 2, 3, 5, 7, 8, 13, 64, 333}) {
    std::string pieces = whole;
    std::size_t phase = 0;
    for (std::size_t at = 0; at < pieces.size(); at += piece) {
      phase = unmask({pieces.data() + at, std::min(piece, pieces.size() - at)}, key, phase);
    }
    EXPECT_EQ(pieces, reference) << piece;
  }
  unmask(reference, key, 0);
  EXPECT_EQ(reference, whole);  // masking twice is the identity
}

}  // namespace
