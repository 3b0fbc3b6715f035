#include "static/file_response.hpp"

#include <stet/test_request.hpp>

#include "http/date_cache.hpp"

#include <gtest/gtest.h>

#include <fcntl.h>

#include <memory>
#include <string>

namespace {

using stet::status;
using stet::detail::build_file_response;
using stet::detail::decision;
using stet::detail::facts_of;
using stet::detail::file_entry;
using stet::detail::file_reply;
using stet::detail::outcome;
using stet::detail::read_static_fields;

// A small file held in memory, as the cache keeps it.
std::unique_ptr<file_entry> memory_entry(std::string bytes) {
  auto e = std::make_unique<file_entry>();
  e->id = {1, 2, bytes.size(), 1'000'000'000, 1'000'000'000};
  e->etag = stet::detail::make_etag(e->id);
  e->mtime = 784111777;  // Sun, 06 Nov 1994 08:49:37 GMT
  stet::detail::format_http_date(e->mtime, e->last_modified);
  e->content_type = "text/css; charset=utf-8";
  e->bytes = std::make_shared<const std::string>(std::move(bytes));
  return e;
}

file_reply reply_for(const file_entry& e, std::string_view cache_control = "public, max-age=60") {
  return file_reply{e, e.content_type, "", false, cache_control};
}

TEST(FileResponse, FullAnswerSharesTheCachedBytes) {
  const auto e = memory_entry("body{}");
  const stet::response r = build_file_response(reply_for(*e), decision{outcome::full, 0, 6});
  EXPECT_EQ(r.status(), status::ok);
  EXPECT_EQ(r.body(), "body{}");
  EXPECT_EQ(r.body().data(), e->bytes->data());  // no copy
  EXPECT_EQ(r.header("Content-Type"), "text/css; charset=utf-8");
  EXPECT_EQ(r.header("ETag"), e->etag_view());
  EXPECT_EQ(r.header("Last-Modified"), "Sun, 06 Nov 1994 08:49:37 GMT");
  EXPECT_EQ(r.header("Cache-Control"), "public, max-age=60");
  EXPECT_EQ(r.header("Accept-Ranges"), "bytes");
  EXPECT_FALSE(r.header("Content-Encoding"));
  EXPECT_FALSE(r.header("Vary"));
  EXPECT_FALSE(r.header("Content-Range"));
}

TEST(FileResponse, PartialCopiesOnlyTheRange) {
  const auto e = memory_entry("0123456789");
  const stet::response r = build_file_response(reply_for(*e), decision{outcome::partial, 2, 5});
  EXPECT_EQ(r.status(), status::partial_content);
  EXPECT_EQ(r.body(), "23456");
  EXPECT_EQ(r.header("Content-Range"), "bytes 2-6/10");
  EXPECT_EQ(r.header("Accept-Ranges"), "bytes");
  EXPECT_EQ(r.header("ETag"), e->etag_view());
}

TEST(FileResponse, NotModifiedCarriesValidatorsOnly) {
  const auto e = memory_entry("x");
  const stet::response r = build_file_response(reply_for(*e), decision{outcome::not_modified, 0, 0});
  EXPECT_EQ(r.status(), status::not_modified);
  EXPECT_TRUE(r.body().empty());
  EXPECT_EQ(r.header("ETag"), e->etag_view());
  EXPECT_EQ(r.header("Last-Modified"), "Sun, 06 Nov 1994 08:49:37 GMT");
  EXPECT_EQ(r.header("Cache-Control"), "public, max-age=60");
  EXPECT_FALSE(r.header("Content-Type"));
  EXPECT_FALSE(r.header("Accept-Ranges"));
}

TEST(FileResponse, PreconditionFailedIsBare) {
  const auto e = memory_entry("x");
  const stet::response r = build_file_response(reply_for(*e), decision{outcome::precondition_failed, 0, 0});
  EXPECT_EQ(r.status(), status::precondition_failed);
  EXPECT_TRUE(r.header_block().empty()) << r.header_block();
  EXPECT_TRUE(r.body().empty());
}

TEST(FileResponse, RangeNotSatisfiableNamesTheSize) {
  const auto e = memory_entry("0123456789");
  const stet::response r = build_file_response(reply_for(*e), decision{outcome::range_not_satisfiable, 0, 0});
  EXPECT_EQ(r.status(), status::range_not_satisfiable);
  EXPECT_EQ(r.header("Content-Range"), "bytes */10");
  EXPECT_EQ(r.header("Accept-Ranges"), "bytes");
  EXPECT_TRUE(r.body().empty());
}

TEST(FileResponse, EncodedSiblingVaryAndNoCacheControl) {
  const auto original = memory_entry("plain text");
  const auto br = memory_entry("BROTLI");
  const file_reply reply{*br, original->content_type, "br", true, ""};
  const stet::response r = build_file_response(reply, decision{outcome::full, 0, 6});
  EXPECT_EQ(r.body(), "BROTLI");
  EXPECT_EQ(r.header("Content-Type"), "text/css; charset=utf-8");  // of the original, not of the .br
  EXPECT_EQ(r.header("Content-Encoding"), "br");
  EXPECT_EQ(r.header("Vary"), "Accept-Encoding");
  EXPECT_FALSE(r.header("Cache-Control"));
}

TEST(FileResponse, UndatedEntryHasNoLastModified) {
  auto e = memory_entry("icon");
  e->dated = false;
  const stet::response r = build_file_response(reply_for(*e), decision{outcome::full, 0, 4});
  EXPECT_FALSE(r.header("Last-Modified"));
  EXPECT_EQ(r.header("ETag"), e->etag_view());
  EXPECT_FALSE(facts_of(*e).last_modified);
}

TEST(FileResponse, LargeFileGoesBySendfileRange) {
  file_entry e;
  e.id.size = 1 << 20;
  e.etag = stet::detail::make_etag(e.id);
  e.content_type = "application/octet-stream";
  const int fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  e.file = std::make_shared<const stet::file_source>(fd);
  const stet::response whole = build_file_response(reply_for(e), decision{outcome::full, 0, e.id.size});
  EXPECT_EQ(whole.file(), e.file.get());
  EXPECT_EQ(whole.file_offset(), 0u);
  EXPECT_EQ(whole.content_length(), e.id.size);
  EXPECT_TRUE(whole.body().empty());
  const stet::response part = build_file_response(reply_for(e), decision{outcome::partial, 100, 50});
  EXPECT_EQ(part.file(), e.file.get());
  EXPECT_EQ(part.file_offset(), 100u);
  EXPECT_EQ(part.content_length(), 50u);
  EXPECT_EQ(part.header("Content-Range"), "bytes 100-149/1048576");
}

TEST(FileResponse, FactsOfAnEntry) {
  const auto e = memory_entry("12345");
  const auto facts = facts_of(*e);
  EXPECT_EQ(facts.etag, e->etag_view());
  EXPECT_EQ(facts.last_modified, 784111777);
  EXPECT_EQ(facts.size, 5u);
}

TEST(FileResponse, ReadsEachConditionalFieldOnceFirstWins) {
  stet::test_request q(stet::method::get, "/a.css");
  q.header("RANGE", "bytes=0-1")
      .header("Range", "bytes=5-6")
      .header("If-Match", "\"a\"")
      .header("if-range", "\"b\"")
      .header("If-None-Match", "\"c\"")
      .header("Accept-Encoding", "br, gzip")
      .header("If-Modified-Since", "Sun, 06 Nov 1994 08:49:37 GMT")
      .header("If-Unmodified-Since", "Mon, 07 Nov 1994 08:49:37 GMT")
      .header("X-Range", "ignored");
  const auto f = read_static_fields(q.get());
  EXPECT_FALSE(f.conditions.head);
  EXPECT_EQ(f.conditions.range, "bytes=0-1");
  EXPECT_EQ(f.conditions.if_match, "\"a\"");
  EXPECT_EQ(f.conditions.if_range, "\"b\"");
  EXPECT_EQ(f.conditions.if_none_match, "\"c\"");
  EXPECT_EQ(f.accept_encoding, "br, gzip");
  EXPECT_EQ(f.conditions.if_modified_since, "Sun, 06 Nov 1994 08:49:37 GMT");
  EXPECT_EQ(f.conditions.if_unmodified_since, "Mon, 07 Nov 1994 08:49:37 GMT");

  stet::test_request head(stet::method::head, "/a.css");
  const auto h = read_static_fields(head.get());
  EXPECT_TRUE(h.conditions.head);
  EXPECT_FALSE(h.conditions.range);
  EXPECT_FALSE(h.accept_encoding);
}

// RFC 9110 5.3: the list-valued fields, sent as several lines, are read as one
// list (joined with ", "); the single-valued ones keep their first line.
TEST(FileResponse, ListFieldsOfSeveralLinesAreJoined) {
  stet::test_request q(stet::method::get, "/a.css");
  q.header("Accept-Encoding", "identity;q=0.5")
      .header("If-None-Match", "\"a\"")
      .header("accept-encoding", "gzip")
      .header("If-Match", "\"m\"")
      .header("IF-NONE-MATCH", "\"b\", \"c\"")
      .header("If-Match", "\"n\"");
  const auto f = read_static_fields(q.get());
  EXPECT_EQ(f.accept_encoding, "identity;q=0.5, gzip");
  EXPECT_EQ(f.conditions.if_none_match, "\"a\", \"b\", \"c\"");
  EXPECT_EQ(f.conditions.if_match, "\"m\", \"n\"");
}

}  // namespace
