// A streamed answer is teed into an entry while the first client receives
// it, stored when it ends within the entry bound, and abandoned (never stored
// truncated) when it grows past it.
#include <stet/response_cache.hpp>

#include "unit/cache/cache_test_routes.hpp"

#include <gtest/gtest.h>

#include <string>

namespace {

using stet::method;
using stet::request;
using stet::response;

// What the connection does with a stream: calls the producer piece by piece.
std::string drain(const response& r) {
  std::string all;
  std::string piece;
  for (bool more = true; more;) {
    piece.clear();
    stet::stream_writer out(piece, 64);
    more = r.producer()(out);
    all += piece;
  }
  return all;
}

struct stream_app {
  explicit stream_app(std::size_t bound) : cache(std::make_shared<stet::response_cache>()) {
    stet::cache_policy p;
    p.max_entry_bytes = bound;
    routes.get("/rows", cache->route("rows", p), [this](request&) {
      ++runs;
      response r;
      r.set_header("Content-Type", "text/csv");
      r.set_stream([n = 0](stet::stream_writer& out) mutable {
        while (n < 100 && out.wants_more()) out.write("row " + std::to_string(n++) + "\n");
        return n < 100;
      });
      return r;
    });
  }
  response get() {
    stet::test_request q(method::get, "/rows");
    return routes.handle(q);
  }
  std::shared_ptr<stet::response_cache> cache;
  stet::router routes;
  int runs = 0;
};

TEST(ResponseCacheStream, AStreamWithinTheBoundIsStoredWhenItEnds) {
  stream_app app(64 * 1024);
  const response first = app.get();
  ASSERT_TRUE(first.is_stream());
  EXPECT_EQ(app.cache->stats().entries, 0u);  // not before it ended
  const std::string body = drain(first);
  EXPECT_EQ(app.cache->stats().entries, 1u);
  const response hit = app.get();
  EXPECT_FALSE(hit.is_stream());
  EXPECT_EQ(hit.body(), body);
  EXPECT_EQ(hit.header("Content-Type"), "text/csv");
  EXPECT_EQ(app.runs, 1);
}

TEST(ResponseCacheStream, AStreamOverTheBoundIsAbandonedNotTruncated) {
  stream_app app(100);
  const std::string body = drain(app.get());
  EXPECT_GT(body.size(), 100u);  // the client got all of it
  EXPECT_EQ(app.cache->stats().entries, 0u);
  EXPECT_EQ(app.cache->stats().not_stored, 1u);
  EXPECT_TRUE(app.get().is_stream());
  EXPECT_EQ(app.runs, 2);
}

TEST(ResponseCacheStream, AStreamNobodyReadToTheEndIsNotStored) {
  stream_app app(64 * 1024);
  {
    const response r = app.get();
    std::string piece;
    stet::stream_writer out(piece, 64);
    (void)r.producer()(out);  // one piece, then the client left
  }
  EXPECT_EQ(app.cache->stats().entries, 0u);
  EXPECT_TRUE(app.get().is_stream());
}

}  // namespace
