// Response compression and coded request bodies over real sockets: what the
// connection sends for each case of the policy, decoded with zlib, brotli and
// zstd themselves (tests/support/codecs.hpp), never with stet's own code.
#include <stet/stet.hpp>

#include "support/codecs.hpp"
#include "support/http_client.hpp"
#include "support/test_server.hpp"

#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <string>
#include <thread>

namespace {

using stet::content_coding;
using stet::test::compressible_text;
using stet::test::raw_client;
using stet::test::reference_decode;
using stet::test::running_server;

std::size_t size_arg(const stet::request& req) {
  std::string_view q = req.query_string();
  std::size_t n = 0;
  if (q.starts_with("n=")) std::from_chars(q.data() + 2, q.data() + q.size(), n);
  return n;
}

stet::response typed(std::string_view type, std::string body) {
  stet::response r = stet::response::text(std::move(body));
  r.set_header("Content-Type", type);
  return r;
}

// Rows of a CSV stream are released to the producer one piece at a time by
// the test, so it can check what the client decodes before the stream ends.
struct gate {
  std::atomic<int> released{1};
};

stet::router compression_routes(const std::shared_ptr<gate>& pieces) {
  stet::router r;
  r.get("/text", [](stet::request& q) { return stet::response::text(compressible_text(size_arg(q))); });
  r.get("/json", [](stet::request& q) { return typed("application/json", compressible_text(size_arg(q))); });
  r.get("/png", [](stet::request&) { return typed("image/png", compressible_text(4096)); });
  r.get("/coded", [](stet::request&) {
    stet::response res = stet::response::text(compressible_text(4096));
    res.set_header("Content-Encoding", "gzip");  // the handler's own (here: bogus) coding, passed on as it is
    return res;
  });
  r.get("/no-transform", [](stet::request&) {
    stet::response res = stet::response::text(compressible_text(4096));
    res.set_header("Cache-Control", "public, no-transform");
    return res;
  });
  r.get("/none", [](stet::request&) { return stet::response(stet::status::no_content); });
  r.get("/unchanged", [](stet::request&) {
    // A 304 names the type of the 200 it stands for, so it carries that 200's Vary.
    stet::response res(stet::status::not_modified);
    res.set_header("ETag", "\"v1\"");
    res.set_header("Content-Type", "text/plain");
    return res;
  });
  r.get("/tagged", [](stet::request&) {
    stet::response res = stet::response::text(compressible_text(4096));
    res.set_header("ETag", "\"v1\"");
    res.set_header("Vary", "Origin");
    return res;
  });
  r.get("/secret", [](stet::request&) {
    stet::response res = stet::response::text(compressible_text(4096));
    res.no_compression();
    return res;
  });
  stet::route_options plain;
  plain.compress = false;
  r.get("/plain-route", plain, [](stet::request&) { return stet::response::text(compressible_text(4096)); });
  r.get("/csv", [pieces](stet::request&) {
    stet::response res;
    res.set_header("Content-Type", "text/csv");
    res.set_stream([pieces, piece = 0](stet::stream_writer& out) mutable {
      // Waits (bounded) until the test lets this piece go.
      for (int i = 0; i < 500 && pieces->released.load() <= piece; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
      for (int row = 0; row < 100; ++row)
        out.write("piece-" + std::to_string(piece) + ",row-" + std::to_string(row) + "\n");
      return ++piece < 3;
    });
    return res;
  });
  r.post("/size", [](stet::request& q) {
    std::string answer =
        std::to_string(q.body().size()) + " " + std::string(q.header("content-encoding").value_or("-"));
    answer += " " + std::string(q.body().substr(0, 16));
    return stet::response::text(answer);
  });
  return r;
}

stet::server_options compressing(bool decode = false) {
  stet::server_options o = stet::test::test_options();
  o.compression.enabled = true;
  o.compression.decode_request_bodies = decode;
  o.compression.max_decoded_body_bytes = 1024 * 1024;
  o.max_body_bytes = 8 * 1024 * 1024;
  return o;
}

struct fixture {
  std::shared_ptr<gate> pieces = std::make_shared<gate>();
  running_server server;
  explicit fixture(stet::server_options o = compressing()) : server(compression_routes(pieces), std::move(o)) {}

  std::optional<stet::test::http_response> get(std::string_view target, std::string_view headers = {},
                                               std::string_view method = "GET") {
    raw_client c(server.port());
    return c.request(method, target, headers);
  }
};

std::string accept(std::string_view codings) { return "Accept-Encoding: " + std::string(codings) + "\r\n"; }

bool varies(const stet::test::http_response& r) {
  const auto v = r.header("vary");
  return v && v->find("Accept-Encoding") != std::string::npos;
}

TEST(CompressionWire, RoundTripsDecodeWithTheReferenceLibraries) {
  fixture f;
  const std::pair<content_coding, std::string_view> codings[] = {
      {content_coding::gzip, "gzip"}, {content_coding::br, "br"}, {content_coding::zstd, "zstd"}};
  for (const std::size_t n : {1024UL, 1500UL, 16384UL, 65536UL, 65537UL, 300000UL, 2UL * 1024 * 1024}) {
    const std::string expected = compressible_text(n);
    for (const auto& [coding, name] : codings) {
      const auto r = f.get("/json?n=" + std::to_string(n), accept(name));
      ASSERT_TRUE(r) << n << " " << name;
      EXPECT_EQ(r->header("content-encoding"), name) << n;
      EXPECT_TRUE(varies(*r)) << n;
      EXPECT_LT(r->body.size(), n) << n << " " << name;
      EXPECT_EQ(reference_decode(coding, r->body), expected) << n << " " << name;
    }
  }
}

TEST(CompressionWire, ServerPreferenceBreaksTiesAndQValuesDecide) {
  fixture f;
  EXPECT_EQ(f.get("/text?n=4000", accept("gzip, deflate, br, zstd"))->header("content-encoding"), "br");
  EXPECT_EQ(f.get("/text?n=4000", accept("gzip;q=1, br;q=0.5"))->header("content-encoding"), "gzip");
  EXPECT_EQ(f.get("/text?n=4000", accept("x-gzip"))->header("content-encoding"), "gzip");
  EXPECT_EQ(f.get("/text?n=4000", accept("*;q=0.1, br;q=0"))->header("content-encoding"), "zstd");
}

// RFC 9110 5.3: several Accept-Encoding lines are one list. Reading only the
// first line answered identity here ("identity;q=0.5" alone prefers nothing
// else), and the memo keyed on the first line alone would have served that
// answer to the next request with the same first line too.
TEST(CompressionWire, SeveralAcceptEncodingLinesAreOneList) {
  fixture f;
  const auto two = f.get("/text?n=4000", accept("identity;q=0.5") + accept("gzip"));
  ASSERT_TRUE(two);
  EXPECT_EQ(two->header("content-encoding"), "gzip");
  EXPECT_TRUE(varies(*two));
  EXPECT_EQ(reference_decode(content_coding::gzip, two->body), compressible_text(4000));
  const auto first_only = f.get("/text?n=4000", accept("identity;q=0.5"));
  ASSERT_TRUE(first_only);
  EXPECT_FALSE(first_only->header("content-encoding"));
  // The first mention of a coding counts, whichever line it is on.
  EXPECT_EQ(f.get("/text?n=4000", accept("br;q=0.1") + accept("br, gzip;q=0.5"))->header("content-encoding"), "gzip");
}

TEST(CompressionWire, HeadHasTheHeadersOfGetButNoContentLength) {
  fixture f;
  const auto get = f.get("/text?n=5000", accept("gzip"));
  const auto head = f.get("/text?n=5000", accept("gzip"), "HEAD");
  ASSERT_TRUE(get && head);
  EXPECT_EQ(head->status, 200);
  EXPECT_EQ(head->header("content-encoding"), "gzip");
  EXPECT_EQ(head->header("content-encoding"), get->header("content-encoding"));
  EXPECT_EQ(head->header("vary"), get->header("vary"));
  EXPECT_TRUE(get->header("content-length"));
  EXPECT_FALSE(head->header("content-length"));
  EXPECT_TRUE(head->body.empty());
  // The connection stays usable: HEAD's missing length did not confuse the framing.
  raw_client c(f.server.port());
  ASSERT_TRUE(c.request("HEAD", "/text?n=5000", accept("gzip")));
  const auto next = c.request("GET", "/text?n=10");
  ASSERT_TRUE(next);
  EXPECT_EQ(next->body, compressible_text(10));
}

TEST(CompressionWire, ExclusionsAreSentAsTheyAre) {
  fixture f;
  const std::string ae = accept("gzip, br, zstd");
  struct expectation {
    std::string target;
    int status;
    bool vary;
  };
  for (const expectation& e : std::initializer_list<expectation>{{"/text?n=1023", 200, false},
                                                                 {"/png", 200, false},
                                                                 {"/no-transform", 200, false},
                                                                 {"/none", 204, false},
                                                                 {"/unchanged", 304, true},
                                                                 {"/secret", 200, false},
                                                                 {"/plain-route", 200, false}}) {
    const auto r = f.get(e.target, ae);
    ASSERT_TRUE(r) << e.target;
    EXPECT_EQ(r->status, e.status) << e.target;
    EXPECT_FALSE(r->header("content-encoding")) << e.target;
    EXPECT_EQ(varies(*r), e.vary) << e.target;
  }
  EXPECT_EQ(f.get("/text?n=1023", ae)->body, compressible_text(1023));
  EXPECT_EQ(f.get("/text?n=1024", ae)->header("content-encoding"), "br");  // the threshold is inclusive
}

TEST(CompressionWire, AHandlersOwnContentEncodingIsNeverEncodedAgain) {
  fixture f;
  const auto r = f.get("/coded", accept("gzip, br"));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->count("content-encoding"), 1u);
  EXPECT_EQ(r->header("content-encoding"), "gzip");
  EXPECT_EQ(r->body, compressible_text(4096));
}

TEST(CompressionWire, RangeRequestsGetIdentityWithVary) {
  fixture f;
  const auto r = f.get("/text?n=4000", accept("gzip") + "Range: bytes=0-99\r\n");
  ASSERT_TRUE(r);
  EXPECT_FALSE(r->header("content-encoding"));
  EXPECT_TRUE(varies(*r));
}

TEST(CompressionWire, IdentityAnswersCarryVary) {
  fixture f;
  for (const std::string& headers : {std::string(), accept(""), accept("identity"), accept("deflate")}) {
    const auto r = f.get("/text?n=4000", headers);
    ASSERT_TRUE(r) << headers;
    EXPECT_EQ(r->status, 200) << headers;
    EXPECT_FALSE(r->header("content-encoding")) << headers;
    EXPECT_TRUE(varies(*r)) << headers;
    EXPECT_EQ(r->body, compressible_text(4000)) << headers;
  }
}

TEST(CompressionWire, VariantsGetTheirOwnETagAndVaryIsMerged) {
  fixture f;
  EXPECT_EQ(f.get("/tagged", accept("br"))->header("etag"), "\"v1-br\"");
  EXPECT_EQ(f.get("/tagged", accept("gzip"))->header("etag"), "\"v1-gzip\"");
  EXPECT_EQ(f.get("/tagged", accept("zstd"))->header("etag"), "\"v1-zstd\"");
  const auto identity = f.get("/tagged");
  EXPECT_EQ(identity->header("etag"), "\"v1\"");
  EXPECT_EQ(identity->header("vary"), "Origin, Accept-Encoding");
  EXPECT_EQ(identity->count("vary"), 1u);
}

TEST(CompressionWire, NotAcceptableWhenIdentityAndEveryCodingAreRefused) {
  fixture f;
  const auto refused = f.get("/text?n=4000", accept("identity;q=0"));
  EXPECT_EQ(refused->status, 406);
  EXPECT_TRUE(varies(*refused));
  EXPECT_EQ(f.get("/text?n=4000", accept("gzip;q=0, br;q=0, zstd;q=0, identity;q=0"))->status, 406);
  EXPECT_EQ(f.get("/text?n=4000", accept("*;q=0"))->status, 406);
  const auto coded = f.get("/text?n=4000", accept("identity;q=0, gzip"));
  EXPECT_EQ(coded->status, 200);
  EXPECT_EQ(coded->header("content-encoding"), "gzip");
  // Not a candidate for compression at all: identity goes out.
  EXPECT_EQ(f.get("/text?n=10", accept("identity;q=0"))->status, 200);
}

TEST(CompressionWire, OffByDefaultSendsNoCodingAndNoVary) {
  fixture f(stet::test::test_options());
  const auto r = f.get("/text?n=4000", accept("gzip, br"));
  ASSERT_TRUE(r);
  EXPECT_FALSE(r->header("content-encoding"));
  EXPECT_FALSE(r->header("vary"));
}

// Undoes chunked framing as bytes arrive; what it cannot finish stays buffered.
class dechunker {
 public:
  bool done() const noexcept { return done_; }
  void feed(std::string_view bytes, std::string& data) {
    buffer_ += bytes;
    for (;;) {
      if (remaining_ == 0) {
        const std::size_t eol = buffer_.find("\r\n");
        if (eol == std::string::npos) return;
        const std::size_t size = std::stoul(buffer_.substr(0, eol), nullptr, 16);
        buffer_.erase(0, eol + 2);
        if (size == 0) {
          done_ = true;
          return;
        }
        remaining_ = size + 2;  // with its CRLF
      }
      const std::size_t take = std::min(remaining_, buffer_.size());
      const std::size_t data_bytes = remaining_ > 2 ? std::min(take, remaining_ - 2) : 0;
      data.append(buffer_, 0, data_bytes);
      buffer_.erase(0, take);
      remaining_ -= take;
      if (remaining_ > 0) return;
    }
  }

 private:
  std::string buffer_;
  std::size_t remaining_ = 0;
  bool done_ = false;
};

TEST(CompressionWire, AStreamedCsvIsDecodableAfterEveryPiece) {
  for (const auto& [coding, name] : {std::pair{content_coding::gzip, "gzip"}, std::pair{content_coding::br, "br"},
                                     std::pair{content_coding::zstd, "zstd"}}) {
    fixture f;
    raw_client c(f.server.port(), "127.0.0.1", 4096);  // a small receive window: a slow client
    ASSERT_TRUE(c.send("GET /csv HTTP/1.1\r\nHost: x\r\n" + accept(name) + "\r\n"));
    std::string received = c.read_once();
    const std::size_t head_end = received.find("\r\n\r\n");
    ASSERT_NE(head_end, std::string::npos);
    const std::string head = received.substr(0, head_end);
    EXPECT_NE(head.find("Content-Encoding: " + std::string(name)), std::string::npos) << head;
    EXPECT_NE(head.find("Transfer-Encoding: chunked"), std::string::npos) << head;
    stet::test::reference_decoder decoder(coding);
    dechunker chunks;
    std::string coded;
    std::string plain;
    received.erase(0, head_end + 4);
    for (int piece = 0; piece < 3; ++piece) {
      // Everything of this piece decodes before the producer may make the next.
      const std::string last_row = "piece-" + std::to_string(piece) + ",row-99\n";
      for (int i = 0; i < 200 && plain.find(last_row) == std::string::npos; ++i) {
        chunks.feed(received, coded);
        ASSERT_TRUE(decoder.feed(coded, plain)) << name;
        coded.clear();
        if (plain.find(last_row) == std::string::npos) received = c.read_once(std::chrono::milliseconds(50));
      }
      EXPECT_NE(plain.find(last_row), std::string::npos) << name << " piece " << piece;
      EXPECT_EQ(plain.find("piece-" + std::to_string(piece + 1)), std::string::npos) << name;
      f.pieces->released.store(piece + 2);
      received.clear();
    }
    for (int i = 0; i < 100 && !chunks.done(); ++i) {
      chunks.feed(c.read_once(std::chrono::milliseconds(50)), coded);
      ASSERT_TRUE(decoder.feed(coded, plain));
      coded.clear();
    }
    EXPECT_TRUE(chunks.done()) << name;
    EXPECT_TRUE(decoder.ended()) << name;
    EXPECT_EQ(std::count(plain.begin(), plain.end(), '\n'), 300) << name;
  }
}

std::string gzip_of(std::string_view plain, int level = 9) {
  z_stream z{};
  deflateInit2(&z, level, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&z, plain.size()), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(plain.data()));
  z.avail_in = static_cast<uInt>(plain.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

std::optional<stet::test::http_response> post_coded(fixture& f, std::string_view coding, std::string_view body) {
  raw_client c(f.server.port());
  return c.request("POST", "/size", "Content-Encoding: " + std::string(coding) + "\r\n", body);
}

TEST(CompressionWire, CodedRequestBodiesAreDecodedOnOptIn) {
  fixture f(compressing(/*decode=*/true));
  const std::string plain = compressible_text(100000);
  const auto r = post_coded(f, "gzip", gzip_of(plain));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, "100000 - " + plain.substr(0, 16));
  EXPECT_EQ(post_coded(f, "deflate", gzip_of(plain))->status, 415);
  EXPECT_EQ(post_coded(f, "gzip, br", gzip_of(plain))->status, 415);
  std::string corrupt = gzip_of(plain);
  corrupt[corrupt.size() / 2] = static_cast<char>(corrupt[corrupt.size() / 2] ^ 0x55);
  EXPECT_EQ(post_coded(f, "gzip", corrupt)->status, 400);
  EXPECT_EQ(post_coded(f, "identity", "abc")->body, "3 identity abc");
  EXPECT_EQ(post_coded(f, "gzip", gzip_of(plain))->status, 200);  // the server is fine after refusals
}

TEST(CompressionWire, AGzipBombIsRefusedWith413) {
  fixture f(compressing(/*decode=*/true));
  const std::string bomb = gzip_of(std::string(64 * 1024 * 1024, '\0'));  // ~64 KB decoding to 64 MiB
  ASSERT_LT(bomb.size(), 100u * 1024);
  const auto r = post_coded(f, "gzip", bomb);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 413);
  const auto fine = post_coded(f, "gzip", gzip_of(std::string(1024 * 1024, '\0')));  // exactly the limit
  EXPECT_EQ(fine->status, 200);
  EXPECT_EQ(fine->body.substr(0, 8), "1048576 ");
}

TEST(CompressionWire, CodedBodiesReachTheHandlerAsTheyCameWhenDecodingIsOff) {
  fixture f;
  const std::string coded = gzip_of("hello");
  const auto r = post_coded(f, "gzip", coded);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->body.substr(0, r->body.find(' ')), std::to_string(coded.size()));
  EXPECT_NE(r->body.find(" gzip "), std::string::npos);
}

}  // namespace
