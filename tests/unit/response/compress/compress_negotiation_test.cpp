#include "response/compress/accept_encoding.hpp"

#include "counters/memo_stats.hpp"
#include "response/compress/accept_encoding_memo.hpp"

#include <gtest/gtest.h>

#include <array>
#include <string>

namespace {

using stet::content_coding;
using stet::detail::accept_weights;
using stet::detail::negotiate;
using stet::detail::parse_accept_encoding;

constexpr std::array<content_coding, 3> server_default = {content_coding::br, content_coding::zstd,
                                                          content_coding::gzip};

struct row {
  const char* header;
  content_coding expected;
  bool acceptable;
};

// RFC 9110 12.5.3, one line per rule; the server prefers br > zstd > gzip.
constexpr row table[] = {
    {"gzip", content_coding::gzip, true},
    {"gzip, deflate, br", content_coding::br, true},        // a tie: the server's preference
    {"gzip, deflate, br, zstd", content_coding::br, true},  // Chrome 123+
    {"zstd, gzip", content_coding::zstd, true},             // zstd before gzip
    {"br;q=0.5, gzip", content_coding::gzip, true},         // the higher q wins over preference
    {"gzip;q=0.8, br;q=0.8, zstd;q=0.9", content_coding::zstd, true},
    {"GZIP", content_coding::gzip, true},                             // case-insensitive codings
    {"x-gzip", content_coding::gzip, true},                           // x-gzip is gzip
    {"Br;Q=1", content_coding::br, true},                             // ... and parameter names
    {"\tgzip ;  q=0.5 ,\t br ; q=0.4 ", content_coding::gzip, true},  // OWS and tabs
    {"*", content_coding::br, true},                                  // anything: the preferred one
    {"*;q=0.5, gzip", content_coding::gzip, true},                    // listed beats *
    {"*;q=0, gzip", content_coding::gzip, true},
    {"br;q=0, *", content_coding::zstd, true},     // * covers the others only
    {"gzip;q=0", content_coding::identity, true},  // refused gzip, identity is fine
    {"identity", content_coding::identity, true},
    {"", content_coding::identity, true},  // empty: no coding wanted
    {" , ,", content_coding::identity, true},
    {"deflate, compress", content_coding::identity, true},       // codings stet does not produce
    {"gzip;q=0.5, identity", content_coding::identity, true},    // identity weighed higher
    {"gzip;q=0.5, identity;q=0.5", content_coding::gzip, true},  // a tie goes to the coding
    {"identity;q=0", content_coding::identity, false},           // nothing acceptable: 406
    {"*;q=0", content_coding::identity, false},
    {"gzip;q=0, identity;q=0", content_coding::identity, false},
    {"identity;q=0, gzip", content_coding::gzip, true},
    {"*;q=0, identity", content_coding::identity, true},  // identity named: acceptable
    {"gzip;q=2", content_coding::identity, true},         // malformed q: member ignored
    {"gzip;q=0.0000", content_coding::identity, true},    // too many decimals
    {"gzip;q=", content_coding::identity, true},
    {"gzip;level=9", content_coding::identity, true},  // a parameter other than q
    {"gzip;q=0.5;x=1", content_coding::identity, true},
    {"gzip;q=1.0, br;q=abc", content_coding::gzip, true},
    {"gz ip, br", content_coding::br, true},                         // not a token: ignored
    {"gzip;q=0, gzip;q=1", content_coding::identity, true},          // the first mention counts
    {"br;q=0.001", content_coding::br, true},                        // unnamed identity ranks last
    {"gzip;q=0.4, *;q=0.5", content_coding::br, true},               // * covers br at 0.5 ...
    {"gzip;q=0.4, identity;q=0.5", content_coding::identity, true},  // ... and identity when named
    {"br;q=0.001, identity;q=0", content_coding::br, true},
};

TEST(CompressNegotiation, Table) {
  for (const row& r : table) {
    const stet::detail::negotiation n = negotiate(parse_accept_encoding(r.header), server_default);
    EXPECT_EQ(n.coding, r.expected) << '"' << r.header << '"';
    EXPECT_EQ(n.acceptable, r.acceptable) << '"' << r.header << '"';
  }
}

TEST(CompressNegotiation, ServerPreferenceIsConfigurable) {
  const accept_weights w = parse_accept_encoding("gzip, br, zstd");
  const std::array<content_coding, 3> gzip_first = {content_coding::gzip, content_coding::br, content_coding::zstd};
  EXPECT_EQ(negotiate(w, gzip_first).coding, content_coding::gzip);
  // A coding the server does not offer is never chosen, however welcome.
  const std::array<content_coding, 1> gzip_only = {content_coding::gzip};
  EXPECT_EQ(negotiate(parse_accept_encoding("br, zstd"), gzip_only).coding, content_coding::identity);
  EXPECT_EQ(negotiate(parse_accept_encoding("br, zstd, identity;q=0"), gzip_only).acceptable, false);
}

TEST(CompressNegotiation, WeightsAreThousandths) {
  const accept_weights w = parse_accept_encoding("gzip;q=0.123, br;q=1.000, zstd;q=0, *;q=0.5, identity;q=0.05");
  EXPECT_EQ(w.gzip, 123);
  EXPECT_EQ(w.br, 1000);
  EXPECT_EQ(w.zstd, 0);
  EXPECT_EQ(w.star, 500);
  EXPECT_EQ(w.identity, 50);
  EXPECT_EQ(stet::detail::weight_of(parse_accept_encoding("gzip"), content_coding::identity), 1);
  EXPECT_EQ(stet::detail::weight_of(parse_accept_encoding("*;q=0.3"), content_coding::identity), 300);
  EXPECT_EQ(stet::detail::weight_of(parse_accept_encoding("gzip"), content_coding::br), 0);
}

class CompressNegotiationMemo : public ::testing::Test {
 protected:
  void SetUp() override {
    stet::detail::accept_encoding_memo_clear();
    stet::detail::accept_encoding_memo_enable(true);
  }
  void TearDown() override { stet::detail::accept_encoding_memo_clear(); }
  stet::detail::memo_stats& stats = stet::detail::this_thread_memo_stats();
};

TEST_F(CompressNegotiationMemo, SameValueIsParsedOnce) {
  const std::uint64_t misses = stats.accept_encoding_misses;
  const std::uint64_t hits = stats.accept_encoding_hits;
  const std::string value = "gzip, deflate, br, zstd";
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(stet::detail::cached_accept_encoding(value), parse_accept_encoding(value));
  }
  EXPECT_EQ(stats.accept_encoding_misses - misses, 1u);
  EXPECT_EQ(stats.accept_encoding_hits - hits, 4u);
  EXPECT_EQ(stet::detail::accept_encoding_memo_size(), 1u);
  EXPECT_EQ(stats.accept_encoding_entries.get(), 1u);
}

TEST_F(CompressNegotiationMemo, BoundedLeastRecentlyUsedGoes) {
  const std::uint64_t evictions = stats.accept_encoding_evictions;
  constexpr std::size_t capacity = stet::detail::accept_encoding_memo_capacity;
  for (std::size_t i = 0; i < capacity; ++i) stet::detail::cached_accept_encoding("gzip;q=0." + std::to_string(i));
  stet::detail::cached_accept_encoding("gzip;q=0.0");  // refresh the oldest
  stet::detail::cached_accept_encoding("br");          // evicts "gzip;q=0.1", the least recently used
  EXPECT_EQ(stet::detail::accept_encoding_memo_size(), capacity);
  EXPECT_EQ(stats.accept_encoding_evictions - evictions, 1u);
  const std::uint64_t hits = stats.accept_encoding_hits;
  stet::detail::cached_accept_encoding("gzip;q=0.0");
  EXPECT_EQ(stats.accept_encoding_hits - hits, 1u);
  const std::uint64_t misses = stats.accept_encoding_misses;
  stet::detail::cached_accept_encoding("gzip;q=0.1");
  EXPECT_EQ(stats.accept_encoding_misses - misses, 1u);
}

TEST_F(CompressNegotiationMemo, LongValuesBypass) {
  const std::string long_value(stet::detail::accept_encoding_memo_max_bytes + 1, ' ');
  const std::uint64_t bypasses = stats.accept_encoding_bypasses;
  EXPECT_EQ(stet::detail::cached_accept_encoding(long_value + "gzip").gzip, 1000);
  EXPECT_EQ(stats.accept_encoding_bypasses - bypasses, 1u);
  EXPECT_EQ(stet::detail::accept_encoding_memo_size(), 0u);
  // Distinct values that differ only in content (same length) are not confused.
  EXPECT_EQ(stet::detail::cached_accept_encoding("gzip;q=0").gzip, 0);
  EXPECT_EQ(stet::detail::cached_accept_encoding("gzip;q=1").gzip, 1000);
}

}  // namespace
