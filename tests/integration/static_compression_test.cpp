// Compressed variants of static files (static_options::compression): made once
// per file version, served from the cache, revalidated with either ETag form,
// never used for ranges, replaced when the file changes.
#include <stet/stet.hpp>

#include "support/codecs.hpp"
#include "support/http_client.hpp"
#include "support/static_tree.hpp"
#include "support/test_server.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>

namespace {

using stet::content_coding;
using stet::test::compressible_text;
using stet::test::raw_client;
using stet::test::reference_decode;
using stet::test::running_server;

struct site {
  stet::test::temp_tree tree;
  std::shared_ptr<stet::static_files> files;
  std::unique_ptr<running_server> server;

  explicit site(bool compress = true, std::uint64_t budget = 16 * 1024 * 1024) {
    tree.write("app.css", compressible_text(20000));
    tree.write("big.js", compressible_text(400000));  // above the inline limit: made off the worker
    tree.write("tiny.css", "a{}");
    tree.write("logo.png", compressible_text(8000));
    stet::static_options o;
    o.settle_time = std::chrono::milliseconds(0);
    o.cache_budget = budget;
    o.compression.enabled = compress;
    // An edit is asked about right after it is made: the stat per hit sees it
    // at once, where a watch sees it once the watcher thread has read its event
    // (a request in between got the old variant under load: the watched mode's
    // rules are unit/static/static_files_test.cpp's).
    o.watch_files = false;
    files = std::make_shared<stet::static_files>(tree.root().string(), o);
    stet::router r;
    stet::mount(r, "/static", files);
    stet::server_options options = stet::test::test_options();
    options.compression.enabled = true;  // the server's own step must leave static answers alone
    server = std::make_unique<running_server>(std::move(r), options);
  }

  std::optional<stet::test::http_response> get(std::string_view target, std::string_view headers = {},
                                               std::string_view method = "GET") {
    raw_client c(server->port());
    return c.request(method, target, headers);
  }
};

std::string accept(std::string_view codings) { return "Accept-Encoding: " + std::string(codings) + "\r\n"; }

TEST(StaticCompression, AVariantIsMadeOnceAndServedFromTheCache) {
  site s;
  const std::string css = compressible_text(20000);
  for (int i = 0; i < 5; ++i) {
    const auto r = s.get("/static/app.css", accept("gzip, br"));
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 200);
    EXPECT_EQ(r->header("content-encoding"), "br");
    EXPECT_EQ(r->header("vary"), "Accept-Encoding");
    EXPECT_EQ(r->count("vary"), 1u);
    EXPECT_EQ(reference_decode(content_coding::br, r->body), css);
  }
  const stet::static_stats st = s.files->stats();
  EXPECT_EQ(st.variant_misses, 1u);
  EXPECT_EQ(st.variant_hits, 4u);
  EXPECT_GT(st.variant_bytes, 0u);
  EXPECT_EQ(st.bytes_cached, 20000u + st.variant_bytes);
  for (const auto& [coding, name] :
       {std::pair{content_coding::gzip, "gzip"}, std::pair{content_coding::zstd, "zstd"}}) {
    const auto r = s.get("/static/app.css", accept(name));
    EXPECT_EQ(r->header("content-encoding"), name);
    EXPECT_EQ(reference_decode(coding, r->body), css);
  }
  EXPECT_EQ(s.files->stats().variant_misses, 3u);
}

// RFC 9110 5.3: the variant is negotiated over every Accept-Encoding line,
// not the first one alone (which answered identity here).
TEST(StaticCompression, SeveralAcceptEncodingLinesAreOneList) {
  site s;
  const auto r = s.get("/static/app.css", accept("identity;q=0.5") + accept("gzip"));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->header("content-encoding"), "gzip");
  EXPECT_EQ(reference_decode(content_coding::gzip, r->body), compressible_text(20000));
  const auto first_only = s.get("/static/app.css", accept("identity;q=0.5"));
  ASSERT_TRUE(first_only);
  EXPECT_FALSE(first_only->header("content-encoding"));
}

TEST(StaticCompression, VariantETagsRevalidateInBothForms) {
  site s;
  const auto identity = s.get("/static/app.css");
  const auto br = s.get("/static/app.css", accept("br"));
  ASSERT_TRUE(identity && br);
  const std::string tag = identity->header("etag").value_or("");
  ASSERT_EQ(tag.size(), 18u);
  EXPECT_EQ(br->header("etag"), tag.substr(0, 17) + "-br\"");
  EXPECT_TRUE(identity->header("vary"));  // identity answers vary too
  // Each form matches the variant it names, and only that one.
  const auto same_br = s.get("/static/app.css", accept("br") + "If-None-Match: " + *br->header("etag") + "\r\n");
  EXPECT_EQ(same_br->status, 304);
  EXPECT_EQ(same_br->header("etag"), br->header("etag"));
  EXPECT_EQ(same_br->header("vary"), "Accept-Encoding");
  const auto same_identity = s.get("/static/app.css", "If-None-Match: " + tag + "\r\n");
  EXPECT_EQ(same_identity->status, 304);
  EXPECT_EQ(same_identity->header("etag"), tag);
  const auto other = s.get("/static/app.css", accept("br") + "If-None-Match: " + tag + "\r\n");
  EXPECT_EQ(other->status, 200);
  EXPECT_EQ(other->header("content-encoding"), "br");
  const auto gzip_now = s.get("/static/app.css", accept("gzip") + "If-None-Match: " + *br->header("etag") + "\r\n");
  EXPECT_EQ(gzip_now->status, 200);
  EXPECT_EQ(gzip_now->header("content-encoding"), "gzip");
}

TEST(StaticCompression, RangesAreServedFromTheIdentityBytes) {
  site s;
  const auto r = s.get("/static/app.css", accept("br") + "Range: bytes=0-99\r\n");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 206);
  EXPECT_FALSE(r->header("content-encoding"));
  EXPECT_EQ(r->header("content-range"), "bytes 0-99/20000");
  EXPECT_EQ(r->body, compressible_text(20000).substr(0, 100));
  EXPECT_EQ(r->header("vary"), "Accept-Encoding");
}

TEST(StaticCompression, HeadSendsTheVariantsLength) {
  site s;
  const auto get = s.get("/static/app.css", accept("br"));
  const auto head = s.get("/static/app.css", accept("br"), "HEAD");
  ASSERT_TRUE(get && head);
  EXPECT_EQ(head->header("content-encoding"), "br");
  EXPECT_EQ(head->header("content-length"), std::to_string(get->body.size()));
  EXPECT_EQ(head->header("etag"), get->header("etag"));
}

TEST(StaticCompression, AnEditedFileGetsANewVariant) {
  site s;
  const auto before = s.get("/static/app.css", accept("br"));
  ASSERT_TRUE(before);
  const std::string edited = compressible_text(30000) + "/* edited */";
  s.tree.replace("app.css", edited);
  const auto after = s.get("/static/app.css", accept("br"));
  ASSERT_TRUE(after);
  EXPECT_EQ(after->header("content-encoding"), "br");
  EXPECT_NE(after->header("etag"), before->header("etag"));
  EXPECT_EQ(reference_decode(content_coding::br, after->body), edited);
  EXPECT_EQ(s.files->stats().variant_misses, 2u);
  // The old version's variant went with its entry: the cache holds one file and one variant.
  const stet::static_stats st = s.files->stats();
  EXPECT_EQ(st.entries, 1u);
  EXPECT_EQ(st.bytes_cached, edited.size() + st.variant_bytes);
}

TEST(StaticCompression, LargeFilesAreCompressedOffTheWorker) {
  site s;
  const std::string js = compressible_text(400000);
  std::optional<stet::test::http_response> r;
  for (int i = 0; i < 500; ++i) {
    r = s.get("/static/big.js", accept("gzip"));
    ASSERT_TRUE(r);
    ASSERT_EQ(r->status, 200);
    EXPECT_EQ(r->header("vary"), "Accept-Encoding");
    if (r->header("content-encoding")) break;
    EXPECT_EQ(r->body, js);  // identity until the variant is ready
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_EQ(r->header("content-encoding"), "gzip");
  EXPECT_EQ(reference_decode(content_coding::gzip, r->body), js);
  EXPECT_EQ(s.files->stats().variant_misses, 1u);
}

TEST(StaticCompression, UnlistedTypesSmallFilesAndOffAreLeftAlone) {
  site s;
  for (const std::string_view path : {"/static/logo.png", "/static/tiny.css"}) {
    const auto r = s.get(path, accept("gzip, br"));
    ASSERT_TRUE(r) << path;
    EXPECT_FALSE(r->header("content-encoding")) << path;
    EXPECT_FALSE(r->header("vary")) << path;
  }
  site off(false);
  const auto r = off.get("/static/app.css", accept("gzip, br"));
  EXPECT_FALSE(r->header("content-encoding"));
  EXPECT_FALSE(r->header("vary"));
  EXPECT_EQ(r->body, compressible_text(20000));
}

TEST(StaticCompression, AVariantThatDoesNotFitTheBudgetIsNotKept) {
  site s(true, 20000);  // room for app.css, none for its variant
  for (int i = 0; i < 3; ++i) {
    const auto r = s.get("/static/app.css", accept("br"));
    ASSERT_TRUE(r);
    EXPECT_FALSE(r->header("content-encoding"));
    EXPECT_EQ(r->header("vary"), "Accept-Encoding");
  }
  const stet::static_stats st = s.files->stats();
  EXPECT_EQ(st.variant_misses, 1u);  // tried once for this version, not per request
  EXPECT_EQ(st.variant_bytes, 0u);
  EXPECT_LE(st.bytes_cached, 20000u);
}

}  // namespace
