// Server frames: heads for every length form, control frames, and the shared
// frame that publish queues to many connections. Each written frame is read
// back by a frame parser set up as a client would be (no mask expected).
#include "websocket/frame_writer.hpp"

#include "support/alloc_counter.hpp"
#include "websocket/frame_parser.hpp"

#include <gtest/gtest.h>

#include <string>

namespace {

using namespace stet::detail::ws;

frame_header parse_server_frame(std::string_view bytes) {
  frame_rules client_side;
  client_side.require_mask = false;
  client_side.allow_rsv1 = true;
  client_side.max_frame_bytes = ~std::uint64_t{0} >> 1;
  const header_result r = decode_frame_header(bytes, client_side);
  EXPECT_EQ(r.what, header_result::status::ok);
  return r.header;
}

TEST(WebsocketWriter, HeadsUseTheShortestLengthForm) {
  struct expectation {
    std::uint64_t length;
    std::string head;
  };
  const std::vector<expectation> table = {
      {0, std::string("\x82\x00", 2)},
      {125, "\x82\x7d"},
      {126, std::string("\x82\x7e\x00\x7e", 4)},
      {65535, "\x82\x7e\xff\xff"},
      {65536, std::string("\x82\x7f\x00\x00\x00\x00\x00\x01\x00\x00", 10)},
      {std::uint64_t{1} << 40, std::string("\x82\x7f\x00\x00\x01\x00\x00\x00\x00\x00", 10)},
  };
  for (const expectation& e : table) {
    const frame_head h = make_frame_head(opcode::binary, e.length);
    EXPECT_EQ(h.view(), e.head) << e.length;
    EXPECT_EQ(h.size, frame_head_size(e.length));
    const frame_header back = parse_server_frame(h.view());
    EXPECT_EQ(back.length, e.length);
    EXPECT_FALSE(back.masked);
  }
}

TEST(WebsocketWriter, HeadsCarryOpcodeFinAndCompression) {
  for (opcode op : {opcode::text, opcode::binary, opcode::continuation}) {
    const frame_header h = parse_server_frame(make_frame_head(op, 5, false).view());
    EXPECT_EQ(h.op, op);
    EXPECT_FALSE(h.fin);
    EXPECT_FALSE(h.rsv1);
  }
  const frame_header compressed = parse_server_frame(make_frame_head(opcode::text, 7, true, true).view());
  EXPECT_TRUE(compressed.rsv1);
  EXPECT_TRUE(compressed.fin);
  EXPECT_EQ(make_frame_head(opcode::text, 7, true, true).bytes[0], '\xc1');
  static_assert(make_frame_head(opcode::text, 5).size == 2, "heads are built at compile time too");
}

TEST(WebsocketWriter, CloseFramesCarryCodeAndReason) {
  EXPECT_EQ(make_close_frame(close_code::normal).view(), std::string("\x88\x02\x03\xe8", 4));
  EXPECT_EQ(make_close_frame(close_code::going_away, "restart").view(), std::string("\x88\x09\x03\xe9restart", 11));
  EXPECT_EQ(make_close_frame(4000, "app").view(), std::string("\x88\x05\x0f\xa0"
                                                              "app",
                                                              7));
  // Codes that are never sent give an empty close frame ("no status").
  for (std::uint16_t code : {0, 1005, 1006, 1015, 2000}) {
    EXPECT_EQ(make_close_frame(code, "ignored").view(), std::string("\x88\x00", 2)) << code;
  }
}

TEST(WebsocketWriter, CloseReasonIsCutAtACharacterBoundary) {
  const std::string ascii(200, 'r');
  const control_frame f = make_close_frame(close_code::normal, ascii);
  EXPECT_EQ(f.size, 127u);
  EXPECT_EQ(f.view().substr(4), std::string(123, 'r'));
  // 122 ASCII bytes then a 3-byte character that would straddle byte 123.
  const std::string straddling = std::string(122, 'r') + "\xe2\x82\xac";
  EXPECT_EQ(make_close_frame(close_code::normal, straddling).view().substr(4), std::string(122, 'r'));
  const std::string fitting = std::string(120, 'r') + "\xe2\x82\xac";
  EXPECT_EQ(make_close_frame(close_code::normal, fitting).view().substr(4), fitting);
}

TEST(WebsocketWriter, PingAndPong) {
  EXPECT_EQ(make_ping_frame().view(), std::string("\x89\x00", 2));
  EXPECT_EQ(make_pong_frame("abc").view(),
            "\x8a\x03"
            "abc");
  const control_frame longest = make_pong_frame(std::string(300, 'p'));
  EXPECT_EQ(longest.size, 127u);
  EXPECT_EQ(parse_server_frame(longest.view()).length, 125u);
}

TEST(WebsocketWriter, ControlFramesAndHeadsAllocateNothing) {
  stet::test::allocation_scope scope;
  const frame_head h = make_frame_head(opcode::text, 70000);
  const control_frame c = make_close_frame(close_code::normal, "bye");
  const control_frame p = make_pong_frame("x");
  EXPECT_EQ(scope.count(), 0u);
  EXPECT_EQ(h.size + c.size + p.size, 10u + 7u + 3u);
}

TEST(WebsocketWriter, SharedFrameIsHeadAndPayloadInOneBuffer) {
  const std::string payload(300, 's');
  const std::shared_ptr<const std::string> frame = make_shared_frame(opcode::text, payload);
  ASSERT_NE(frame, nullptr);
  EXPECT_EQ(frame->size(), 4 + payload.size());
  EXPECT_EQ(frame->substr(0, 4), make_frame_head(opcode::text, payload.size()).view());
  EXPECT_EQ(frame->substr(4), payload);
  const std::shared_ptr<const std::string> compressed = make_shared_frame(opcode::binary, "zz", true);
  EXPECT_TRUE(parse_server_frame(*compressed).rsv1);
}

}  // namespace
