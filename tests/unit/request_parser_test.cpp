#include "http/request_parser.hpp"  // Test that the header file is self-contained.

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace {

using stet::detail::parser_limits;
using stet::detail::request_parser;

constexpr parser_limits limits{1024, 512, 16, 4096};

struct outcome {
  std::vector<std::string> bodies;  // one per complete message
  bool failed = false;
  stet::error failure = stet::error::bad_request;
};

// Feeds `stream` in reads of `step` bytes, each into a fresh buffer holding
// exactly what has arrived (as the fuzz target does), until it is used up or
// the parser fails.
outcome parse(std::string_view stream, std::size_t step) {
  request_parser parser(limits);
  outcome out;
  std::string body;
  std::unique_ptr<char[]> buffer;
  std::size_t begin = 0;
  std::size_t end = 0;
  while (true) {
    if (begin == end) {
      if (end == stream.size()) return out;
      end = std::min(end + step, stream.size());
      buffer = std::make_unique<char[]>(end);
      std::memcpy(buffer.get(), stream.data(), end);
    }
    const request_parser::result r = parser.execute(buffer.get(), begin, end, body);
    begin += r.consumed;
    if (r.what == request_parser::event::message_complete) out.bodies.push_back(body);
    if (r.what == request_parser::event::failed) {
      out.failed = true;
      out.failure = parser.failure();
      return out;
    }
  }
}

const std::string chunked_head = "POST /u HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n";

// Found by fuzzing (chunked_fuzz): llhttp's lenient parser, the default of its
// C sources, took a CR followed by any byte as a line end and swallowed the
// byte, so "\r\0" ended a head or a trailer section the peer never ended.
TEST(RequestParser, BareCrDoesNotEndAHead) {
  const outcome o = parse("GET / HTTP/1.1\r\nHost: a\r\n\rXGET / HTTP/1.1\r\nHost: a\r\n\r\n", 4096);
  EXPECT_TRUE(o.bodies.empty());
  EXPECT_TRUE(o.failed);
}

TEST(RequestParser, BareCrDoesNotEndTrailers) {
  const outcome o = parse(chunked_head + "3\r\nabc\r\n0\r\n\rX", 4096);
  EXPECT_TRUE(o.bodies.empty());
  ASSERT_TRUE(o.failed);
  EXPECT_EQ(o.failure, stet::error::bad_chunk);
}

TEST(RequestParser, BareCrDoesNotEndAChunkSizeLine) {
  const outcome o = parse(chunked_head + "3\rXabc\r\n0\r\n\r\n", 4096);
  EXPECT_TRUE(o.bodies.empty());
  EXPECT_TRUE(o.failed);
}

// Found by fuzzing (chunked_fuzz): llhttp, even strict, takes a bare LF after
// the request line and as the last line of a head or of trailers; stet refuses
// bare LF line ends everywhere, however the bytes arrive.
TEST(RequestParser, BareLfNeverEndsALine) {
  const std::string inputs[] = {
      "GET / HTTP/1.1\nHost: a\r\n\r\n",
      "GET / HTTP/1.1\r\nHost: a\r\n\n",
      "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\n\nx",
      chunked_head + "3\r\nabc\r\n0\r\n\n",
      chunked_head + "3\r\nabc\r\n0\r\nT: 1\r\n\n",
  };
  for (const std::string& input : inputs) {
    for (const std::size_t step : {1, 2, 4096}) {
      const outcome o = parse(input, step);
      EXPECT_TRUE(o.bodies.empty()) << input << " in steps of " << step;
      EXPECT_TRUE(o.failed) << input << " in steps of " << step;
    }
  }
}

// Empty lines before a request line are skipped (RFC 9112 2.2), whatever their
// line end: they lie between messages, so they cannot move a boundary.
TEST(RequestParser, CrlfLineEndsAndLeadingEmptyLinesAreFine) {
  for (const std::size_t step : {1, 2, 4096}) {
    const outcome o =
        parse("\n\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n" + chunked_head + "1\r\nx\r\n0\r\nT: 1\r\n\r\n", step);
    EXPECT_FALSE(o.failed) << step;
    EXPECT_EQ(o.bodies, (std::vector<std::string>{"", "x"})) << step;
  }
}

// Found by fuzzing (chunked_fuzz): an unknown method was 501 when the space
// after it had arrived in the same read and 400 when it had not.
TEST(RequestParser, UnknownMethodIs501HoweverItArrives) {
  for (const std::size_t step : {1, 2, 3, 4, 4096}) {
    const outcome o = parse("PUST /x HTTP/1.1\r\nHost: a\r\n\r\n", step);
    ASSERT_TRUE(o.failed) << step;
    EXPECT_EQ(o.failure, stet::error::bad_method) << step;
  }
}

TEST(RequestParser, BytesThatAreNoMethodAre400HoweverTheyArrive) {
  for (const std::size_t step : {1, 2, 4096}) {
    for (const std::string_view bytes : {"\x01GET / HTTP/1.1\r\n", " GET / HTTP/1.1\r\n", "GET/ HTTP/1.1\r\n"}) {
      const outcome o = parse(bytes, step);
      ASSERT_TRUE(o.failed) << bytes;
      EXPECT_EQ(o.failure, stet::error::bad_request) << bytes << " in steps of " << step;
    }
  }
}

// Found by fuzzing (chunked_fuzz): empty lines before a request line counted
// as part of its method or version only when they came in the same read.
TEST(RequestParser, EmptyLinesBeforeARequestDoNotChangeItsError) {
  for (const std::size_t step : {1, 2, 4096}) {
    const outcome unknown = parse("\r\n\r\nhello / HTTP/1.1\r\nHost: a\r\n\r\n", step);
    ASSERT_TRUE(unknown.failed);
    EXPECT_EQ(unknown.failure, stet::error::bad_method) << step;
    const outcome version = parse("\r\nGET / HTTP/2.0\r\nHost: a\r\n\r\n", step);
    ASSERT_TRUE(version.failed);
    EXPECT_EQ(version.failure, stet::error::bad_version) << step;
  }
}

TEST(RequestParser, TrailingGarbageAfterAVersionIs400NotA505) {
  for (const std::size_t step : {1, 4096}) {
    const outcome o = parse("GET / HTTP/1.1 HTTP/2.0\r\nHost: a\r\n\r\n", step);
    ASSERT_TRUE(o.failed);
    EXPECT_EQ(o.failure, stet::error::bad_request) << step;
  }
}

// The property the chunked fuzz target checks, over inputs that exercise every
// kind of outcome: the result never depends on how the bytes were cut.
TEST(RequestParser, OutcomeDoesNotDependOnReadSplits) {
  const std::string inputs[] = {
      "GET /a HTTP/1.1\r\nHost: a\r\n\r\nGET /b HTTP/1.1\r\nHost: a\r\n\r\n",
      chunked_head + "3;x=y\r\nabc\r\n2\r\nde\r\n0\r\nT: 1\r\n\r\n",
      chunked_head + "zz\r\n",
      "POST /u HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\n\r\nabcGET / HTTP/1.1\r\n\r\n",
      "FROB / HTTP/1.1\r\nHost: a\r\n\r\n",
      "GET / HTTP/3.1\r\nHost: a\r\n\r\n",
      "GET / HTTP/1.1\r\nX-A : b\r\n\r\n",
      "GET / HTTP/1.1\r\nHost: a\r\n\r\nPUST / HTTP/1.1\r\n",
  };
  for (const std::string& input : inputs) {
    const outcome whole = parse(input, input.size());
    for (std::size_t step = 1; step < 8; ++step) {
      const outcome cut = parse(input, step);
      EXPECT_EQ(cut.bodies, whole.bodies) << input << " in steps of " << step;
      EXPECT_EQ(cut.failed, whole.failed) << input << " in steps of " << step;
      EXPECT_EQ(cut.failure, whole.failure) << input << " in steps of " << step;
    }
  }
}

}  // namespace
