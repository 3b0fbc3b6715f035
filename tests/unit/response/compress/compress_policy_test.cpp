#include "response/compress/policy.hpp"

#include <stet/response.hpp>
#include <stet/test_request.hpp>

#include "response/compress/response_compression.hpp"
#include "response/compress/variant.hpp"
#include "support/codecs.hpp"

#include <gtest/gtest.h>

#include <string>

namespace {

using stet::content_coding;
using stet::detail::compression_plan;
using stet::detail::compression_request;
using stet::detail::compression_response;
using stet::detail::plan_compression;

stet::compression_options on() {
  stet::compression_options s;
  s.enabled = true;
  return s;
}

compression_request asks(std::string_view accept_encoding = "gzip, br") {
  compression_request q;
  q.accept_encoding = accept_encoding;
  return q;
}

compression_response json_body(std::uint64_t size = 4096) {
  compression_response r;
  r.content_type = "application/json";
  r.size = size;
  return r;
}

TEST(CompressPolicy, CompressesAnEligibleResponse) {
  const compression_plan p = plan_compression(asks(), json_body(), on());
  EXPECT_EQ(p.coding, content_coding::br);
  EXPECT_TRUE(p.vary);
  EXPECT_FALSE(p.not_acceptable);
  EXPECT_FALSE(p.omit_content_length);
}

// Each exclusion on its own, against the same otherwise eligible response.
TEST(CompressPolicy, ExclusionsThatDoNotVary) {
  const compression_plan nothing{};
  stet::compression_options off = on();
  off.enabled = false;
  EXPECT_EQ(plan_compression(asks(), json_body(), off), nothing) << "off globally";

  compression_response r = json_body();
  r.allowed = false;
  EXPECT_EQ(plan_compression(asks(), r, on()), nothing) << "no_compression() / route option";

  for (stet::status s : {stet::status::continue_, stet::status::switching_protocols, stet::status::no_content}) {
    r = json_body();
    r.status = s;
    EXPECT_EQ(plan_compression(asks(), r, on()), nothing) << static_cast<int>(s);
  }
  r = json_body();
  r.has_content_encoding = true;
  EXPECT_EQ(plan_compression(asks(), r, on()), nothing) << "already coded: never twice";
  r = json_body();
  r.no_transform = true;
  EXPECT_EQ(plan_compression(asks(), r, on()), nothing) << "Cache-Control: no-transform";
  r = json_body();
  r.content_type = "image/png";
  EXPECT_EQ(plan_compression(asks(), r, on()), nothing) << "media type not listed";
  r.content_type = "";
  EXPECT_EQ(plan_compression(asks(), r, on()), nothing) << "no Content-Type";
  r = json_body();
  r.file = true;
  EXPECT_EQ(plan_compression(asks(), r, on()), nothing) << "sendfile body";
  EXPECT_EQ(plan_compression(asks(), json_body(1023), on()), nothing) << "under min_bytes";
}

TEST(CompressPolicy, ThresholdIsInclusiveAndStreamsAlwaysQualify) {
  EXPECT_EQ(plan_compression(asks(), json_body(1024), on()).coding, content_coding::br);
  compression_response r = json_body(0);
  r.streamed = true;
  EXPECT_EQ(plan_compression(asks(), r, on()).coding, content_coding::br);
  stet::compression_options s = on();
  s.min_bytes = 0;
  EXPECT_EQ(plan_compression(asks(), json_body(1), s).coding, content_coding::br);
}

TEST(CompressPolicy, IdentityAnswersThatVary) {
  // The coding could have differed: Vary, but no coding.
  compression_plan p = plan_compression(compression_request{}, json_body(), on());
  EXPECT_EQ(p.coding, content_coding::identity) << "no Accept-Encoding: identity, as most servers do";
  EXPECT_TRUE(p.vary);

  compression_request ranged = asks();
  ranged.range = true;
  p = plan_compression(ranged, json_body(), on());
  EXPECT_EQ(p.coding, content_coding::identity) << "Range: the identity representation";
  EXPECT_TRUE(p.vary);

  compression_response partial = json_body();
  partial.status = stet::status::partial_content;
  EXPECT_EQ(plan_compression(asks(), partial, on()).coding, content_coding::identity);
  EXPECT_TRUE(plan_compression(asks(), partial, on()).vary);

  compression_response not_modified = json_body(0);  // a 304 has no body, so no size
  not_modified.status = stet::status::not_modified;
  p = plan_compression(asks(), not_modified, on());
  EXPECT_EQ(p.coding, content_coding::identity);
  EXPECT_TRUE(p.vary) << "a 304 carries the Vary its 200 would";

  p = plan_compression(asks("gzip;q=0"), json_body(), on());
  EXPECT_EQ(p.coding, content_coding::identity);
  EXPECT_TRUE(p.vary);
}

TEST(CompressPolicy, NotAcceptableOnlyWhenIdentityIsRefusedToo) {
  compression_plan p = plan_compression(asks("identity;q=0"), json_body(), on());
  EXPECT_TRUE(p.not_acceptable);
  EXPECT_EQ(p.coding, content_coding::identity);
  EXPECT_FALSE(plan_compression(asks("identity;q=0, gzip"), json_body(), on()).not_acceptable);
  EXPECT_FALSE(plan_compression(asks("gzip;q=0"), json_body(), on()).not_acceptable);
  compression_response png = json_body();
  png.content_type = "image/png";
  EXPECT_FALSE(plan_compression(asks("*;q=0"), png, on()).not_acceptable) << "not ours to refuse";
}

TEST(CompressPolicy, HeadDecidesAsGetWithoutLength) {
  compression_request head = asks();
  head.head = true;
  const compression_plan p = plan_compression(head, json_body(), on());
  EXPECT_EQ(p.coding, plan_compression(asks(), json_body(), on()).coding);
  EXPECT_TRUE(p.vary);
  EXPECT_TRUE(p.omit_content_length);
  head.accept_encoding.reset();
  EXPECT_FALSE(plan_compression(head, json_body(), on()).omit_content_length);
}

TEST(CompressPolicy, MediaTypeList) {
  const stet::compression_options s;
  const auto listed = [&](std::string_view t) { return stet::detail::media_type_listed(t, s.media_types); };
  EXPECT_TRUE(listed("text/html; charset=utf-8"));
  EXPECT_TRUE(listed("TEXT/CSV"));
  EXPECT_TRUE(listed("application/json"));
  EXPECT_TRUE(listed("application/problem+json"));
  EXPECT_TRUE(listed("application/ld+JSON ; x=y"));
  EXPECT_TRUE(listed("application/javascript"));
  EXPECT_TRUE(listed("image/svg+xml"));
  EXPECT_TRUE(listed("application/atom+xml"));
  EXPECT_FALSE(listed("application/+json"));  // no subtype before the suffix
  EXPECT_FALSE(listed("application/octet-stream"));
  EXPECT_FALSE(listed("image/jpeg"));
  EXPECT_FALSE(listed("textual/plain"));
  EXPECT_FALSE(listed("text"));
  EXPECT_FALSE(listed(""));
  const std::vector<std::string> custom = {"application/vnd.custom"};
  EXPECT_TRUE(stet::detail::media_type_listed("application/vnd.custom", custom));
  EXPECT_FALSE(stet::detail::media_type_listed("text/plain", custom));
}

TEST(CompressPolicy, VariantEtags) {
  std::string out = "untouched";
  ASSERT_TRUE(stet::detail::variant_etag("\"abc\"", content_coding::br, out));
  EXPECT_EQ(out, "\"abc-br\"");
  ASSERT_TRUE(stet::detail::variant_etag("W/\"abc\"", content_coding::gzip, out));
  EXPECT_EQ(out, "W/\"abc-gzip\"");
  ASSERT_TRUE(stet::detail::variant_etag("\"abc\"", content_coding::identity, out));
  EXPECT_EQ(out, "\"abc\"");
  out = "untouched";
  EXPECT_FALSE(stet::detail::variant_etag("abc", content_coding::br, out));
  EXPECT_FALSE(stet::detail::variant_etag("\"", content_coding::br, out));
  EXPECT_EQ(out, "untouched");
}

TEST(CompressPolicy, IfNoneMatchMatchesTheVariantServed) {
  using stet::detail::if_none_match_matches;
  const std::string_view tag = "\"abc\"";
  EXPECT_TRUE(if_none_match_matches("\"abc-br\"", tag, content_coding::br));
  EXPECT_TRUE(if_none_match_matches("W/\"abc-br\"", tag, content_coding::br));  // weak comparison
  EXPECT_TRUE(if_none_match_matches("\"x\", \"abc-br\"", tag, content_coding::br));
  EXPECT_TRUE(if_none_match_matches("\"abc\"", tag, content_coding::identity));
  EXPECT_TRUE(if_none_match_matches("*", tag, content_coding::zstd));
  // Another variant's tag does not confirm the bytes being served.
  EXPECT_FALSE(if_none_match_matches("\"abc\"", tag, content_coding::br));
  EXPECT_FALSE(if_none_match_matches("\"abc-gzip\"", tag, content_coding::br));
  EXPECT_FALSE(if_none_match_matches("\"abc-br\"", tag, content_coding::identity));
  EXPECT_TRUE(if_none_match_matches("\"abc-gzip\", \"abc-br\"", tag, content_coding::gzip));
  // A weak identity tag: its variants are weak too, and match weakly.
  EXPECT_TRUE(if_none_match_matches("W/\"abc-gzip\"", "W/\"abc\"", content_coding::gzip));
  EXPECT_TRUE(if_none_match_matches("\"abc-gzip\"", "W/\"abc\"", content_coding::gzip));
}

TEST(CompressPolicy, VaryIsAddedOrMerged) {
  stet::response fresh = stet::response::text("x");
  stet::detail::add_vary_accept_encoding(fresh);
  EXPECT_EQ(fresh.header("Vary"), "Accept-Encoding");

  stet::response origin = stet::response::text("x");
  origin.add_header("Vary", "Origin");
  stet::detail::add_vary_accept_encoding(origin);
  EXPECT_EQ(origin.header("Vary"), "Origin, Accept-Encoding");

  stet::response two = stet::response::text("x");
  two.add_header("Vary", "Origin");
  two.add_header("vary", "Cookie");
  stet::detail::add_vary_accept_encoding(two);
  EXPECT_EQ(two.header("Vary"), "Origin, Cookie, Accept-Encoding");

  for (const char* covered : {"accept-encoding", "Origin, ACCEPT-ENCODING", "*"}) {
    stet::response r = stet::response::text("x");
    r.add_header("Vary", covered);
    stet::detail::add_vary_accept_encoding(r);
    EXPECT_EQ(r.header("Vary"), covered);
  }
}

std::string big_json() { return stet::test::compressible_text(8192); }

TEST(CompressPolicy, CompressResponseCodesBodyAndHeaders) {
  stet::test_request q(stet::method::get, "/report.json");
  q.header("Accept-Encoding", "gzip");
  const std::string plain = big_json();
  stet::response r = stet::response::json_text(plain);
  r.add_header("ETag", "\"v1\"");
  const compression_plan p = stet::detail::compress_response(q, r, on());
  EXPECT_EQ(p.coding, content_coding::gzip);
  EXPECT_EQ(r.header("Content-Encoding"), "gzip");
  EXPECT_EQ(r.header("Vary"), "Accept-Encoding");
  EXPECT_EQ(r.header("ETag"), "\"v1-gzip\"");
  EXPECT_LT(r.body().size(), plain.size());
  EXPECT_EQ(stet::test::reference_decode(content_coding::gzip, r.body()), plain);
}

// RFC 9110 5.3: two Accept-Encoding lines are one list; the first alone
// ("identity;q=0.5") asked for nothing but identity.
TEST(CompressPolicy, SeveralAcceptEncodingLinesAreOneList) {
  stet::test_request q(stet::method::get, "/report.json");
  q.header("Accept-Encoding", "identity;q=0.5").header("X-Other", "1").header("accept-encoding", "gzip");
  EXPECT_EQ(stet::detail::compression_facts(q.get()).accept_encoding, "identity;q=0.5, gzip");
  const std::string plain = big_json();
  stet::response r = stet::response::json_text(plain);
  EXPECT_EQ(stet::detail::compress_response(q, r, on()).coding, content_coding::gzip);
  EXPECT_EQ(stet::test::reference_decode(content_coding::gzip, r.body()), plain);
}

TEST(CompressPolicy, CompressResponseLeavesExcludedAnswersAlone) {
  stet::test_request q(stet::method::get, "/");
  q.header("Accept-Encoding", "br");
  const std::string plain = big_json();

  stet::response coded = stet::response::json_text(plain);
  coded.add_header("Content-Encoding", "gzip");  // the handler coded it itself
  EXPECT_EQ(stet::detail::compress_response(q, coded, on()).coding, content_coding::identity);
  EXPECT_EQ(coded.body(), plain);
  EXPECT_EQ(coded.header("Vary"), std::nullopt);

  stet::response secret = stet::response::json_text(plain);
  secret.no_compression();
  EXPECT_EQ(stet::detail::compress_response(q, secret, on()).coding, content_coding::identity);
  EXPECT_EQ(secret.body(), plain);
  EXPECT_EQ(secret.header("Content-Encoding"), std::nullopt);

  stet::response route_off = stet::response::json_text(plain);
  EXPECT_EQ(stet::detail::compress_response(q, route_off, on(), false).coding, content_coding::identity);
  EXPECT_EQ(route_off.body(), plain);

  stet::response no_transform = stet::response::json_text(plain);
  no_transform.add_header("Cache-Control", "public, No-Transform");
  EXPECT_EQ(stet::detail::compress_response(q, no_transform, on()).coding, content_coding::identity);

  stet::response off = stet::response::json_text(plain);
  EXPECT_EQ(stet::detail::compress_response(q, off, stet::compression_options{}).coding, content_coding::identity);
  EXPECT_EQ(off.header("Content-Encoding"), std::nullopt) << "nothing said about a coding when off";
  EXPECT_EQ(off.header("Vary"), std::nullopt);
}

TEST(CompressPolicy, CompressResponseForHeadAndRange) {
  const std::string plain = big_json();
  stet::test_request head(stet::method::head, "/");
  head.header("Accept-Encoding", "zstd");
  stet::response h = stet::response::json_text(plain);
  h.add_header("ETag", "\"v1\"");
  const compression_plan p = stet::detail::compress_response(head, h, on());
  EXPECT_EQ(p.coding, content_coding::zstd);
  EXPECT_TRUE(p.omit_content_length);
  EXPECT_EQ(h.header("Content-Encoding"), "zstd") << "the headers GET would get";
  EXPECT_EQ(h.header("ETag"), "\"v1-zstd\"");

  stet::test_request ranged(stet::method::get, "/");
  ranged.header("Accept-Encoding", "zstd").header("Range", "bytes=0-9");
  stet::response r = stet::response::json_text(plain);
  EXPECT_EQ(stet::detail::compress_response(ranged, r, on()).coding, content_coding::identity);
  EXPECT_EQ(r.header("Vary"), "Accept-Encoding");
  EXPECT_EQ(r.body(), plain);
}

TEST(CompressPolicy, CompressResponseWrapsStreams) {
  stet::test_request q(stet::method::get, "/stream");
  q.header("Accept-Encoding", "br");
  stet::response r;
  r.set_header("Content-Type", "text/csv");
  r.set_stream([n = 0](stet::stream_writer& w) mutable {
    w.write("id,name\n");
    return ++n < 3;
  });
  EXPECT_EQ(stet::detail::compress_response(q, r, on()).coding, content_coding::br);
  ASSERT_TRUE(r.is_stream());
  std::string coded;
  std::string piece;
  stet::stream_writer w(piece, 65536);
  for (bool more = true; more;) {
    piece.clear();
    more = r.producer()(w);
    coded += piece;
  }
  EXPECT_EQ(stet::test::reference_decode(content_coding::br, coded), "id,name\nid,name\nid,name\n");
}

}  // namespace
