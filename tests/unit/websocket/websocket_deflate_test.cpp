// permessage-deflate (RFC 7692): the negotiation table, RFC 7692 7.2.3's
// sample messages, round trips through the compressor and the reader (with
// and without context takeover, fragmented, split at every byte), and the
// decompressed-size limit.
#include "websocket/deflate_offer.hpp"

#include "support/websocket_frames.hpp"
#include "websocket/deflate_stream.hpp"
#include "websocket/message_reader.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

namespace {

using namespace stet::detail::ws;
using stet::header_field;
using stet::test::ws::event_record;
using stet::test::ws::frame_bytes;
using event = message_reader::event;

std::string bytes(std::initializer_list<int> list) {
  std::string s;
  for (int b : list) s.push_back(static_cast<char>(b));
  return s;
}

deflate_settings enabled() {
  deflate_settings s;
  s.enabled = true;
  return s;
}

std::optional<deflate_agreement> negotiate(std::string_view offers, const deflate_settings& settings = enabled()) {
  const std::vector<header_field> fields = {{"Host", "a"}, {"Sec-WebSocket-Extensions", offers}};
  return negotiate_deflate(fields, settings);
}

TEST(WebsocketDeflate, NegotiationTable) {
  struct row {
    const char* offer;
    deflate_settings settings;
    const char* answer;  // nullptr: declined
  };
  deflate_settings small_client = enabled();
  small_client.client_max_window_bits = 10;
  deflate_settings small_server = enabled();
  small_server.server_max_window_bits = 11;
  deflate_settings server_reset = enabled();
  server_reset.server_no_context_takeover = true;
  deflate_settings client_reset = enabled();
  client_reset.client_no_context_takeover = true;
  deflate_settings everything = enabled();
  everything.server_no_context_takeover = everything.client_no_context_takeover = true;
  everything.server_max_window_bits = 12;
  everything.client_max_window_bits = 14;
  const std::vector<row> table = {
      {"permessage-deflate", enabled(), "permessage-deflate"},
      {"permessage-deflate; client_max_window_bits", enabled(), "permessage-deflate"},
      {"permessage-deflate; client_max_window_bits", small_client, "permessage-deflate; client_max_window_bits=10"},
      {"permessage-deflate; client_max_window_bits=12", small_client, "permessage-deflate; client_max_window_bits=10"},
      {"permessage-deflate; client_max_window_bits=9", small_client, "permessage-deflate; client_max_window_bits=9"},
      {"permessage-deflate; client_max_window_bits=8", enabled(), "permessage-deflate; client_max_window_bits=8"},
      {"permessage-deflate", small_client, "permessage-deflate"},  // not offered: never asked for
      {"permessage-deflate; server_max_window_bits=10", enabled(), "permessage-deflate; server_max_window_bits=10"},
      {"permessage-deflate; server_max_window_bits=12", small_server, "permessage-deflate; server_max_window_bits=11"},
      {"permessage-deflate; server_max_window_bits=10", small_server, "permessage-deflate; server_max_window_bits=10"},
      {"permessage-deflate", small_server, "permessage-deflate; server_max_window_bits=11"},
      {"permessage-deflate; server_max_window_bits=8", enabled(), nullptr},  // zlib has no 256-byte window
      {"permessage-deflate; server_no_context_takeover", enabled(), "permessage-deflate; server_no_context_takeover"},
      {"permessage-deflate", server_reset, "permessage-deflate; server_no_context_takeover"},
      {"permessage-deflate; client_no_context_takeover", enabled(), "permessage-deflate"},
      {"permessage-deflate", client_reset, "permessage-deflate; client_no_context_takeover"},
      {"permessage-deflate; client_max_window_bits", everything,
       "permessage-deflate; server_no_context_takeover; client_no_context_takeover; server_max_window_bits=12; "
       "client_max_window_bits=14"},
      {"permessage-deflate; client_max_window_bits=\"10\"", enabled(), "permessage-deflate; client_max_window_bits=10"},
      {"Permessage-Deflate; Client_Max_Window_Bits", small_client, "permessage-deflate; client_max_window_bits=10"},
      {"  permessage-deflate ;  server_max_window_bits = 10 ", enabled(),
       "permessage-deflate; server_max_window_bits=10"},
      // RFC 7692 7: declined offers.
      {"permessage-deflate; foo", enabled(), nullptr},
      {"permessage-deflate; server_no_context_takeover; server_no_context_takeover", enabled(), nullptr},
      {"permessage-deflate; server_max_window_bits", enabled(), nullptr},
      {"permessage-deflate; server_max_window_bits=16", enabled(), nullptr},
      {"permessage-deflate; server_max_window_bits=7", enabled(), nullptr},
      {"permessage-deflate; server_max_window_bits=010", enabled(), nullptr},
      {"permessage-deflate; client_max_window_bits=0", enabled(), nullptr},
      {"permessage-deflate; client_max_window_bits=", enabled(), nullptr},
      {"permessage-deflate; server_no_context_takeover=1", enabled(), nullptr},
      {"permessage-deflate; client_no_context_takeover=\"\"", enabled(), nullptr},
      {"permessage-deflate;", enabled(), nullptr},
      // Fallbacks and other extensions: the first acceptable offer wins.
      {"permessage-deflate; server_max_window_bits=8, permessage-deflate; client_max_window_bits", small_client,
       "permessage-deflate; client_max_window_bits=10"},
      {"permessage-deflate; foo, permessage-deflate", enabled(), "permessage-deflate"},
      {"x-webkit-deflate-frame, permessage-deflate; server_no_context_takeover", enabled(),
       "permessage-deflate; server_no_context_takeover"},
      {"x-webkit-deflate-frame", enabled(), nullptr},
      {"", enabled(), nullptr},
      {"permessage-deflate", deflate_settings{}, nullptr},  // off by default
  };
  for (const row& r : table) {
    const std::optional<deflate_agreement> a = negotiate(r.offer, r.settings);
    if (r.answer == nullptr) {
      EXPECT_FALSE(a.has_value()) << r.offer;
    } else {
      EXPECT_EQ(a ? a->response() : "(declined)", r.answer) << r.offer;
    }
  }
}

TEST(WebsocketDeflate, AgreedParametersMatchTheAnswer) {
  deflate_settings s = enabled();
  s.client_max_window_bits = 12;
  const auto a = negotiate("permessage-deflate; server_max_window_bits=10; client_max_window_bits", s);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->params.server_max_window_bits, 10);
  EXPECT_EQ(a->params.client_max_window_bits, 12);
  EXPECT_FALSE(a->params.server_no_context_takeover);
  EXPECT_FALSE(a->params.client_no_context_takeover);
  // Offers split over several fields count as one list.
  const std::vector<header_field> fields = {
      {"Sec-WebSocket-Extensions", "x-foo"},
      {"sec-websocket-extensions", "permessage-deflate; server_no_context_takeover"}};
  const auto b = negotiate_deflate(fields, enabled());
  ASSERT_TRUE(b);
  EXPECT_TRUE(b->params.server_no_context_takeover);
}

TEST(WebsocketDeflate, ParsesOffersParameterByParameter) {
  const std::optional<deflate_offer> o =
      parse_deflate_offer("permessage-deflate; client_max_window_bits; server_max_window_bits=10");
  ASSERT_TRUE(o);
  EXPECT_TRUE(o->client_max_window_bits);
  EXPECT_EQ(o->client_max_window_bits_value, 0);
  EXPECT_EQ(o->server_max_window_bits, 10);
  EXPECT_FALSE(o->server_no_context_takeover);
  EXPECT_FALSE(parse_deflate_offer("deflate-frame"));
}

// Runs `frames` (client frames) through a reader with a fresh decompressor.
std::vector<event_record> read_compressed(const std::string& stream, std::vector<std::size_t> pieces,
                                          bool no_context_takeover = false, std::size_t max_message = 1 << 20) {
  inflater decompressor(15, no_context_takeover);
  EXPECT_TRUE(decompressor.valid());
  reader_limits limits;
  limits.max_message_bytes = max_message;
  message_reader reader(limits, &decompressor);
  return stet::test::ws::read_events(reader, stream, pieces);
}

event_record text(std::string payload, std::size_t end) {
  return {event::message, opcode::text, std::move(payload), 0, end};
}

TEST(WebsocketDeflate, ReadsRfc7692SampleMessages) {
  const std::string hello = bytes({0xf2, 0x48, 0xcd, 0xc9, 0xc9, 0x07, 0x00});
  struct sample {
    const char* what;
    std::string stream;
  };
  const std::vector<sample> samples = {
      {"7.2.3.1 one frame", frame_bytes(0xc1, hello)},
      {"7.2.3.1 fragmented",
       frame_bytes(0x41, bytes({0xf2, 0x48, 0xcd})) + frame_bytes(0x80, bytes({0xc9, 0xc9, 0x07, 0x00}))},
      {"7.2.3.3 stored block",
       frame_bytes(0xc1, bytes({0x00, 0x05, 0x00, 0xfa, 0xff, 0x48, 0x65, 0x6c, 0x6c, 0x6f, 0x00}))},
      {"7.2.3.4 BFINAL", frame_bytes(0xc1, bytes({0xf3, 0x48, 0xcd, 0xc9, 0xc9, 0x07, 0x00, 0x00}))},
      {"7.2.3.5 two blocks",
       frame_bytes(0xc1, bytes({0xf2, 0x48, 0x05, 0x00, 0x00, 0x00, 0xff, 0xff, 0xca, 0xc9, 0xc9, 0x07, 0x00}))},
  };
  for (const sample& s : samples) {
    const std::vector<event_record> expected = {text("Hello", s.stream.size())};
    EXPECT_EQ(read_compressed(s.stream, {s.stream.size()}), expected) << s.what;
    for (std::size_t cut = 1; cut < s.stream.size(); ++cut) {
      EXPECT_EQ(read_compressed(s.stream, {cut, s.stream.size() - cut}), expected) << s.what << " cut at " << cut;
    }
  }
  // 7.2.3.6: an empty message.
  const std::string empty = frame_bytes(0xc1, bytes({0x00}));
  EXPECT_EQ(read_compressed(empty, {empty.size()}), std::vector<event_record>{text("", empty.size())});
}

TEST(WebsocketDeflate, ReadsRfc7692ContextTakeoverSample) {
  // 7.2.3.2: the second "Hello" refers back into the first.
  const std::string first = frame_bytes(0xc1, bytes({0xf2, 0x48, 0xcd, 0xc9, 0xc9, 0x07, 0x00}));
  const std::string second = frame_bytes(0xc1, bytes({0xf2, 0x00, 0x11, 0x00, 0x00}));
  const std::string stream = first + second;
  const std::vector<event_record> expected = {text("Hello", first.size()), text("Hello", stream.size())};
  EXPECT_EQ(read_compressed(stream, {stream.size()}), expected);
  EXPECT_EQ(read_compressed(stream, stet::test::ws::even_pieces(stream.size(), 1)), expected);
  // After a message ending in a final block the window is kept too.
  const std::string final_block = frame_bytes(0xc1, bytes({0xf3, 0x48, 0xcd, 0xc9, 0xc9, 0x07, 0x00, 0x00}));
  EXPECT_EQ(read_compressed(final_block + second, {final_block.size() + second.size()}),
            (std::vector<event_record>{text("Hello", final_block.size()),
                                       text("Hello", final_block.size() + second.size())}));
}

TEST(WebsocketDeflate, CompressesHelloAsRfc7692Does) {
  deflater compressor(15, 6, 8, false);
  ASSERT_TRUE(compressor.valid());
  std::string out;
  ASSERT_TRUE(compressor.compress("Hello", out));
  EXPECT_EQ(out, bytes({0xf2, 0x48, 0xcd, 0xc9, 0xc9, 0x07, 0x00}));
  std::string again;
  ASSERT_TRUE(compressor.compress("Hello", again));
  EXPECT_EQ(again, bytes({0xf2, 0x00, 0x11, 0x00, 0x00}));  // 7.2.3.2, context taken over

  deflater fresh_each(15, 6, 8, true);
  std::string a, b;
  ASSERT_TRUE(fresh_each.compress("Hello", a));
  ASSERT_TRUE(fresh_each.compress("Hello", b));
  EXPECT_EQ(a, b);
  EXPECT_EQ(b, bytes({0xf2, 0x48, 0xcd, 0xc9, 0xc9, 0x07, 0x00}));

  std::string empty;
  ASSERT_TRUE(deflater(15, 6, 8, false).compress("", empty));
  EXPECT_EQ(empty, bytes({0x00}));  // 7.2.3.6
}

std::string sample_text(std::size_t n, unsigned seed) {
  std::string s;
  const std::string_view words[] = {"web", "socket ", "frame", " deflate", "€", "\xf0\x9f\x98\x80", "\n", "stet "};
  while (s.size() < n) {
    seed = seed * 1103515245 + 12345;
    s += words[(seed >> 16) % 8];
  }
  return s;
}

// Compressed by our deflater, framed (fragmented into `fragment`-byte frames
// when nonzero), read back by the reader: the same messages.
void round_trip(bool no_context_takeover, std::size_t fragment, std::size_t read_piece) {
  deflater compressor(15, 6, 8, no_context_takeover);
  std::string stream;
  std::vector<event_record> expected;
  for (std::size_t i = 0; i < 6; ++i) {
    const std::string message = sample_text(50 + i * 3000, static_cast<unsigned>(i));
    std::string compressed;
    ASSERT_TRUE(compressor.compress(message, compressed));
    if (fragment == 0 || compressed.size() <= fragment) {
      stream += frame_bytes(0xc1, compressed);
    } else {
      for (std::size_t at = 0; at < compressed.size(); at += fragment) {
        const bool first = at == 0;
        const bool last = at + fragment >= compressed.size();
        const auto head = static_cast<std::uint8_t>((last ? 0x80 : 0) | (first ? 0x41 : 0x00));
        stream += frame_bytes(head, compressed.substr(at, fragment));
      }
    }
    expected.push_back(text(message, stream.size()));
  }
  EXPECT_EQ(read_compressed(stream, stet::test::ws::even_pieces(stream.size(), read_piece), no_context_takeover),
            expected)
      << no_context_takeover << "/" << fragment << "/" << read_piece;
}

TEST(WebsocketDeflate, RoundTripsWithAndWithoutContextTakeover) {
  for (bool reset : {false, true}) {
    for (std::size_t fragment : {0, 1, 100}) {
      for (std::size_t piece : {1 << 20, 4096, 7}) round_trip(reset, fragment, piece);
    }
  }
}

TEST(WebsocketDeflate, RoundTripsIncompressibleData) {
  std::string noise(200000, '\0');
  unsigned seed = 7;
  for (char& c : noise) {
    seed = seed * 1103515245 + 12345;
    c = static_cast<char>(seed >> 23);
  }
  deflater compressor(15, 6, 8, false);
  std::string compressed;
  ASSERT_TRUE(compressor.compress(noise, compressed));
  const std::string stream = frame_bytes(0xc2, compressed);
  const std::vector<event_record> events = read_compressed(stream, stet::test::ws::even_pieces(stream.size(), 5000));
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].op, opcode::binary);
  EXPECT_EQ(events[0].payload, noise);
}

TEST(WebsocketDeflate, DecompressedSizeLimitIs1009) {
  deflater compressor(15, 6, 8, true);
  std::string bomb;
  ASSERT_TRUE(compressor.compress(std::string(1 << 20, 'a'), bomb));
  EXPECT_LT(bomb.size(), 2000u);
  const std::string stream = frame_bytes(0xc2, bomb);
  const std::vector<event_record> refused = read_compressed(stream, {stream.size()}, true, 100000);
  ASSERT_EQ(refused.size(), 1u);
  EXPECT_EQ(refused[0].what, event::failed);
  EXPECT_EQ(refused[0].code, 1009);
  // Exactly at the limit is fine.
  std::string exact;
  ASSERT_TRUE(compressor.compress(std::string(100000, 'a'), exact));
  const std::string fits = frame_bytes(0xc2, exact);
  const std::vector<event_record> accepted =
      read_compressed(fits, stet::test::ws::even_pieces(fits.size(), 3), true, 100000);
  ASSERT_EQ(accepted.size(), 1u);
  EXPECT_EQ(accepted[0].payload.size(), 100000u);
}

TEST(WebsocketDeflate, RefusesCorruptDataAndInvalidText) {
  const std::string corrupt = frame_bytes(0xc1, bytes({0xff, 0xff, 0xff, 0x00}));
  const std::vector<event_record> a = read_compressed(corrupt, {corrupt.size()});
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(a[0].code, 1007);
  deflater compressor(15, 6, 8, false);
  std::string bad_text;
  ASSERT_TRUE(compressor.compress("ok \xc3\x28", bad_text));
  const std::string stream = frame_bytes(0xc1, bad_text);
  const std::vector<event_record> b = read_compressed(stream, {stream.size()});
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(b[0].what, event::failed);
  EXPECT_EQ(b[0].code, 1007);
}

TEST(WebsocketDeflate, Rsv1WithoutAgreementIsAProtocolError) {
  reader_limits limits;
  message_reader reader(limits);
  std::string frame = frame_bytes(0xc1, bytes({0xf2, 0x48, 0xcd, 0xc9, 0xc9, 0x07, 0x00}));
  const message_reader::result r = reader.feed(frame);
  EXPECT_EQ(r.what, event::failed);
  EXPECT_EQ(r.code, close_code::protocol_error);
}

TEST(WebsocketDeflate, StreamsAreMovableHandles) {
  deflater a(12, 1, 4, false);
  deflater b = std::move(a);
  EXPECT_FALSE(a.valid());  // NOLINT(bugprone-use-after-move): the handle moved
  std::string out;
  ASSERT_TRUE(b.compress("moved", out));
  inflater i(12, false);
  inflater j = std::move(i);
  std::string back;
  EXPECT_EQ(j.inflate(out, back, 100), inflater::status::ok);
  EXPECT_EQ(j.finish(back, 100), inflater::status::ok);
  EXPECT_EQ(back, "moved");
}

}  // namespace
