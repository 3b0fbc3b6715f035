#include "response/compress/compress.hpp"

#include "counters/memo_stats.hpp"
#include "response/compress/encoder_pool.hpp"
#include "support/codecs.hpp"

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

namespace {

using stet::content_coding;
using stet::detail::encoder_params;
using stet::detail::flush_kind;

constexpr content_coding all_codings[] = {content_coding::gzip, content_coding::br, content_coding::zstd};

std::string name_of(content_coding c) { return std::string(stet::coding_name(c)); }

TEST(CompressCodec, RoundTripsManySizes) {
  const std::size_t sizes[] = {0, 1, 1023, 1024, 64 * 1024, 1024 * 1024};
  for (content_coding c : all_codings) {
    for (std::size_t n : sizes) {
      const std::string plain = stet::test::compressible_text(n);
      std::string coded;
      ASSERT_TRUE(stet::detail::compress_body(c, encoder_params{}, plain, coded)) << name_of(c) << ' ' << n;
      EXPECT_EQ(stet::test::reference_decode(c, coded), plain) << name_of(c) << ' ' << n;
      if (n >= 1024) {
        EXPECT_LT(coded.size(), plain.size() / 2) << name_of(c) << ' ' << n;
      }
    }
  }
}

TEST(CompressCodec, RoundTripsIncompressibleBytes) {
  for (content_coding c : all_codings) {
    const std::string plain = stet::test::random_bytes(200 * 1024);
    std::string coded = "prefix";  // output is appended
    ASSERT_TRUE(stet::detail::compress_body(c, encoder_params{}, plain, coded));
    ASSERT_EQ(coded.substr(0, 6), "prefix");
    EXPECT_EQ(stet::test::reference_decode(c, std::string_view(coded).substr(6)), plain) << name_of(c);
    EXPECT_LT(coded.size(), plain.size() + plain.size() / 100 + 64) << name_of(c);  // stored blocks, small overhead
  }
}

TEST(CompressCodec, EveryLevelRoundTrips) {
  const std::string plain = stet::test::compressible_text(20000);
  for (int level : {1, 5, 9}) {
    encoder_params p;
    p.gzip_level = level;
    std::string coded;
    ASSERT_TRUE(stet::detail::compress_body(content_coding::gzip, p, plain, coded));
    EXPECT_EQ(stet::test::reference_decode(content_coding::gzip, coded), plain) << level;
  }
  for (int quality : {0, 4, 11}) {
    encoder_params p;
    p.brotli_quality = quality;
    std::string coded;
    ASSERT_TRUE(stet::detail::compress_body(content_coding::br, p, plain, coded));
    EXPECT_EQ(stet::test::reference_decode(content_coding::br, coded), plain) << quality;
  }
  for (int level : {1, 19, 22}) {  // 22 is clamped to 19
    encoder_params p;
    p.zstd_level = level;
    std::string coded;
    ASSERT_TRUE(stet::detail::compress_body(content_coding::zstd, p, plain, coded));
    EXPECT_EQ(stet::test::reference_decode(content_coding::zstd, coded), plain) << level;
  }
}

TEST(CompressCodec, StatesAreReusedAndCounted) {
  stet::detail::memo_stats& stats = stet::detail::this_thread_memo_stats();
  const std::string plain = stet::test::compressible_text(10000);
  for (content_coding c : all_codings) {
    std::string coded;
    ASSERT_TRUE(stet::detail::compress_body(c, encoder_params{}, plain, coded));  // warms the pool
    const std::uint64_t created = stats.compressor_creations;
    const std::uint64_t reused = stats.compressor_reuses;
    const std::size_t i = static_cast<std::size_t>(c) - 1;
    const std::uint64_t in = stats.compressed_bytes_in[i];
    const std::uint64_t out = stats.compressed_bytes_out[i];
    for (int k = 0; k < 3; ++k) {
      coded.clear();
      ASSERT_TRUE(stet::detail::compress_body(c, encoder_params{}, plain, coded));
      EXPECT_EQ(stet::test::reference_decode(c, coded), plain) << "a reset state starts clean: " << name_of(c);
    }
    EXPECT_EQ(stats.compressor_creations, created) << name_of(c);
    EXPECT_EQ(stats.compressor_reuses - reused, 3u) << name_of(c);
    EXPECT_EQ(stats.compressed_bytes_in[i] - in, 3 * plain.size());
    EXPECT_EQ(stats.compressed_bytes_out[i] - out, 3 * coded.size());
  }
  EXPECT_GE(stet::detail::idle_encoders(), 3u);
}

TEST(CompressCodec, ChangedLevelsApplyToAReusedState) {
  const std::string plain = stet::test::compressible_text(50000);
  encoder_params fast;
  fast.gzip_level = 1;
  encoder_params best;
  best.gzip_level = 9;
  std::string a, b, c;
  ASSERT_TRUE(stet::detail::compress_body(content_coding::gzip, fast, plain, a));
  ASSERT_TRUE(stet::detail::compress_body(content_coding::gzip, best, plain, b));
  ASSERT_TRUE(stet::detail::compress_body(content_coding::gzip, fast, plain, c));
  EXPECT_LT(b.size(), a.size());
  EXPECT_EQ(a, c);
}

TEST(CompressCodec, LeaseFromAnotherThreadIsFreedNotPooled) {
  stet::detail::encoder_lease lease = stet::detail::lease_encoder(content_coding::gzip, encoder_params{}, 0);
  ASSERT_TRUE(lease);
  std::thread other([l = std::move(lease)]() mutable { l = stet::detail::encoder_lease(); });
  other.join();
  SUCCEED();  // under ASan/TSan: no use of this thread's pool from the other thread
}

// Each flush makes everything written so far decodable: a client reading a
// slow stream sees every row as soon as its chunk arrives.
TEST(CompressCodec, StreamFlushesAreDecodableIncrementally) {
  for (content_coding c : all_codings) {
    stet::detail::encoder_lease lease = stet::detail::lease_encoder(c, encoder_params{}, 0);
    ASSERT_TRUE(lease);
    stet::test::reference_decoder client(c);
    std::string sent_plain;
    std::string decoded;
    for (int chunk = 0; chunk < 20; ++chunk) {
      const std::string rows = "row " + std::to_string(chunk) + ",value," + std::string(chunk * 10, 'x') + "\n";
      sent_plain += rows;
      std::string wire;
      ASSERT_TRUE(stet::detail::counted_write(*lease, rows, flush_kind::sync, wire));
      ASSERT_FALSE(wire.empty());
      ASSERT_TRUE(client.feed(wire, decoded));
      ASSERT_EQ(decoded, sent_plain) << name_of(c) << " chunk " << chunk;
      EXPECT_FALSE(client.ended());
    }
    std::string tail;
    ASSERT_TRUE(stet::detail::counted_write(*lease, "", flush_kind::finish, tail));
    ASSERT_TRUE(client.feed(tail, decoded));
    EXPECT_TRUE(client.ended()) << name_of(c);
    EXPECT_EQ(decoded, sent_plain);
  }
}

TEST(CompressCodec, CompressedStreamProducer) {
  for (content_coding c : all_codings) {
    int calls = 0;
    stet::stream_producer inner = [&calls](stet::stream_writer& w) {
      ++calls;
      if (calls == 2) return true;  // a round with nothing to say
      for (int i = 0; i < 1000; ++i) w.write("id,name,score\n");
      return calls < 4;
    };
    stet::stream_producer coded = stet::detail::compress_stream(inner, c, encoder_params{});
    ASSERT_TRUE(coded);
    stet::test::reference_decoder client(c);
    std::string decoded;
    std::string piece;
    stet::stream_writer w(piece, 64 * 1024);
    bool more = true;
    int rounds = 0;
    while (more) {
      piece.clear();
      more = coded(w);
      ++rounds;
      if (rounds == 2) {
        EXPECT_TRUE(piece.empty()) << "an empty round stays empty";
      }
      ASSERT_TRUE(client.feed(piece, decoded));
      EXPECT_EQ(decoded.size() % 14, 0u) << "whole rows after every piece";
    }
    EXPECT_TRUE(client.ended()) << name_of(c);
    EXPECT_EQ(decoded.size(), 3u * 1000 * 14);
  }
}

}  // namespace

// The room a compressor call gets: a quarter of the worst case first, never
// under 4 KiB, then as much again as the body has produced, so a body that
// compresses badly still takes few calls.
TEST(CompressCodec, CodedRoomStartsAtAQuarterOfTheBoundAndGrows) {
  using stet::detail::coded_room;
  EXPECT_EQ(coded_room(0, 0), 4096U);
  EXPECT_EQ(coded_room(1000, 0), 4096U);
  EXPECT_EQ(coded_room(64 * 1024, 0), 16 * 1024U);
  EXPECT_EQ(coded_room(64 * 1024, 32 * 1024), 32 * 1024U);
  EXPECT_EQ(coded_room(0, 100 * 1024), 100 * 1024U);
}

// Bodies whose coded size is past the first room (a quarter of the bound),
// of every size around that point: the encoder asks for more and the result
// still decodes to the input.
TEST(CompressCodec, BodiesLargerThanTheFirstRoomRoundTrip) {
  std::string body;
  std::uint32_t x = 12345;
  for (int i = 0; i < 300 * 1024; ++i) {
    x = x * 1103515245 + 12345;
    body.push_back(static_cast<char>(i % 3 == 0 ? 'a' + (x >> 16) % 26 : (x >> 24)));
  }
  for (content_coding c : all_codings) {
    for (std::size_t size : {std::size_t{5000}, std::size_t{16 * 1024 + 7}, std::size_t{70000}, body.size()}) {
      std::string coded;
      ASSERT_TRUE(stet::detail::compress_body(c, encoder_params{}, std::string_view(body).substr(0, size), coded));
      EXPECT_EQ(stet::test::reference_decode(c, coded), body.substr(0, size)) << name_of(c) << " " << size;
    }
  }
}
