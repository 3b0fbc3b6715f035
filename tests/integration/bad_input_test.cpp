// Malformed and ambiguous requests: each gets its exact status with
// Connection: close, the connection is closed, and the server keeps serving.

#include "support/expectations.hpp"
#include "support/http_client.hpp"
#include "support/test_routes.hpp"
#include "support/test_server.hpp"

#include <gtest/gtest.h>

#include <ostream>
#include <string>

namespace {

using namespace stet::test;

struct bad_case {
  const char* name;
  std::string bytes;
  int status;
};

void PrintTo(const bad_case& c, std::ostream* out) { *out << c.name; }

const std::string chunked_post = "POST /echo HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n";

std::string with_field(std::string_view field_line) {
  return "GET /plaintext HTTP/1.1\r\nHost: a\r\n" + std::string(field_line) + "\r\n\r\n";
}

std::string post_with(std::string_view fields, std::string_view body) {
  return "POST /echo HTTP/1.1\r\nHost: a\r\n" + std::string(fields) + "\r\n" + std::string(body);
}

const bad_case bad_cases[] = {
    // Request line (RFC 9112 3: an invalid request-line SHOULD get 400).
    {"MissingVersion", "GET /plaintext\r\nHost: a\r\n\r\n", 400},
    {"TrailingGarbageAfterVersion", "GET /plaintext HTTP/1.1 x\r\nHost: a\r\n\r\n", 400},
    {"SpaceInTarget", "GET /plain text HTTP/1.1\r\nHost: a\r\n\r\n", 400},
    {"RelativeTarget", "GET plaintext HTTP/1.1\r\nHost: a\r\n\r\n", 400},
    {"EncodedNulInPath", "GET /plain%00text HTTP/1.1\r\nHost: a\r\n\r\n", 400},
    {"MalformedEscapeInPath", "GET /plain%zztext HTTP/1.1\r\nHost: a\r\n\r\n", 400},
    {"BareLfLineEnds", "GET /plaintext HTTP/1.1\nHost: a\n\n", 400},
    // Methods (RFC 9110 9.1: unrecognised method -> 501; methods are case-sensitive).
    {"UnknownMethod", "FROB /plaintext HTTP/1.1\r\nHost: a\r\n\r\n", 501},
    {"LowercaseMethod", "get /plaintext HTTP/1.1\r\nHost: a\r\n\r\n", 501},
    // Versions (RFC 9110 15.6.6: 505 for a major version the server refuses).
    {"Http20", "GET /plaintext HTTP/2.0\r\nHost: a\r\n\r\n", 505},
    {"Http31", "GET /plaintext HTTP/3.1\r\nHost: a\r\n\r\n", 505},
    // Host (RFC 9112 3.2: missing, repeated or invalid Host in HTTP/1.1 -> 400).
    {"MissingHost", "GET /plaintext HTTP/1.1\r\n\r\n", 400},
    {"TwoHosts", "GET /plaintext HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400},
    {"TwoIdenticalHosts", "GET /plaintext HTTP/1.1\r\nHost: a\r\nHost: a\r\n\r\n", 400},
    {"HostWithSpace", "GET /plaintext HTTP/1.1\r\nHost: a b\r\n\r\n", 400},
    {"HostWithUserinfo", "GET /plaintext HTTP/1.1\r\nHost: user@a\r\n\r\n", 400},
    {"HostWithNonNumericPort", "GET /plaintext HTTP/1.1\r\nHost: a:80x\r\n\r\n", 400},
    {"AbsoluteFormWithoutHost", "GET http://a/plaintext HTTP/1.1\r\n\r\n", 400},
    // RFC 9110 4.2.4: userinfo in an http(s) URI is refused, not taken for the host.
    {"AbsoluteFormWithUserinfo", "GET http://user:pw@a/plaintext HTTP/1.1\r\nHost: a\r\n\r\n", 400},
    {"AbsoluteFormWithEmptyUserinfo", "GET http://@a/plaintext HTTP/1.1\r\nHost: a\r\n\r\n", 400},
    // Field syntax (RFC 9110 5.5, RFC 9112 5.1).
    {"NulInFieldValue", with_field(std::string("X-A: b\0c", 8)), 400},
    {"BareCrInFieldValue", with_field("X-A: b\rc"), 400},
    {"NulInFieldName", with_field(std::string("X-\0A: b", 7)), 400},
    {"FieldWithoutColon", with_field("NoColon"), 400},
    {"WhitespaceBeforeColon", with_field("X-A : b"), 400},
    {"SpaceInFieldName", with_field("X A: b"), 400},
    {"EmptyFieldName", with_field(": b"), 400},
    {"WhitespaceBeforeColonInContentLength", post_with("Content-Length : 3\r\n", "abc"), 400},
    // Content-Length (RFC 9112 6.3, RFC 9110 8.6).
    {"ContentLengthAndTransferEncoding",
     post_with("Content-Length: 3\r\nTransfer-Encoding: chunked\r\n", "3\r\nabc\r\n0\r\n\r\n"), 400},
    {"TransferEncodingAndContentLength",
     post_with("Transfer-Encoding: chunked\r\nContent-Length: 3\r\n", "3\r\nabc\r\n0\r\n\r\n"), 400},
    {"DuplicateContentLength", post_with("Content-Length: 3\r\nContent-Length: 3\r\n", "abc"), 400},
    {"DifferingContentLengths", post_with("Content-Length: 3\r\nContent-Length: 4\r\n", "abcd"), 400},
    {"ContentLengthList", post_with("Content-Length: 3, 4\r\n", "abcd"), 400},
    {"NonNumericContentLength", post_with("Content-Length: abc\r\n", "abc"), 400},
    {"NegativeContentLength", post_with("Content-Length: -1\r\n", "abc"), 400},
    {"SignedContentLength", post_with("Content-Length: +3\r\n", "abc"), 400},
    {"OverflowingContentLength", post_with("Content-Length: 99999999999999999999999\r\n", "abc"), 400},
    // Chunked framing (RFC 9112 7.1).
    {"NonHexChunkSize", chunked_post + "zz\r\nabc\r\n0\r\n\r\n", 400},
    {"NegativeChunkSize", chunked_post + "-1\r\nabc\r\n0\r\n\r\n", 400},
    {"OverflowingChunkSize", chunked_post + "fffffffffffffffffff\r\nabc\r\n0\r\n\r\n", 400},
    {"SpaceBeforeChunkSize", chunked_post + " 3\r\nabc\r\n0\r\n\r\n", 400},
    {"ChunkLongerThanItsSize", chunked_post + "3\r\nabcX\r\n0\r\n\r\n", 400},
    {"ChunkWithoutCrlf", chunked_post + "3\r\nabc0\r\n\r\n", 400},
    // Chunk extensions (RFC 9112 7.1.1): a token name, a token or quoted-string value.
    {"ChunkExtensionWithoutValue", chunked_post + "3;a=;b\r\nabc\r\n0\r\n\r\n", 400},
    {"ChunkExtensionWithoutName", chunked_post + "3;a=b;;c\r\nabc\r\n0\r\n\r\n", 400},
    {"ChunkExtensionUnterminatedQuote", chunked_post + "3;a=\"b\r\nabc\r\n0\r\n\r\n", 400},
    {"ChunkExtensionControlByte", chunked_post + "3;a=\"b\x7f\"\r\nabc\r\n0\r\n\r\n", 400},
    // A quoted-pair never quotes a line end or a control byte (request smuggling hides there).
    {"ChunkExtensionQuotedCrLf", chunked_post + "3;a=\"b\\\r\nX\"\r\nabc\r\n0\r\n\r\n", 400},
    {"ChunkExtensionQuotedLf", chunked_post + "3;a=\"b\\\n\"\r\nabc\r\n0\r\n\r\n", 400},
    {"ChunkExtensionBareCrInQuote", chunked_post + "3;a=\"b\rc\"\r\nabc\r\n0\r\n\r\n", 400},
    {"ChunkExtensionQuotedControl", chunked_post + "3;a=\"\\\x01\"\r\nabc\r\n0\r\n\r\n", 400},
    // Transfer-Encoding (RFC 9112 6.1, 6.3).
    {"TransferEncodingNotEndingInChunked", post_with("Transfer-Encoding: gzip\r\n", "abc"), 400},
    {"ChunkedNotLast", post_with("Transfer-Encoding: chunked, gzip\r\n", "3\r\nabc\r\n0\r\n\r\n"), 400},
    {"ChunkedTwice", post_with("Transfer-Encoding: chunked, chunked\r\n", "3\r\nabc\r\n0\r\n\r\n"), 400},
    {"IdentityTransferEncoding", post_with("Transfer-Encoding: identity\r\n", "abc"), 400},
    {"UnknownCodingBeforeChunked", post_with("Transfer-Encoding: gzip, chunked\r\n", "3\r\nabc\r\n0\r\n\r\n"), 501},
    {"UnknownCodingInSeparateField",
     post_with("Transfer-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n", "3\r\nabc\r\n0\r\n\r\n"), 501},
    {"TransferEncodingInHttp10", "POST /echo HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n", 400},
    {"WhitespaceBeforeColonInTransferEncoding",
     post_with("Transfer-Encoding : chunked\r\nContent-Length: 3\r\n", "3\r\nabc\r\n0\r\n\r\n"), 400},
    // Found by fuzzing: a bare CR followed by any byte must not end a head or a
    // trailer section (llhttp's lenient parser took it for CRLF, byte swallowed).
    {"BareCrEndsHead", "GET /plaintext HTTP/1.1\r\nHost: a\r\n\rX", 400},
    {"BareCrEndsTrailers", chunked_post + "3\r\nabc\r\n0\r\n\rX", 400},
    // Found by fuzzing: a bare LF is refused wherever it would end a line, as in
    // BareLfLineEnds (llhttp, even strict, takes it after the request line, as
    // the head's last line and as the trailers' last line).
    {"BareLfAfterRequestLine", "GET /plaintext HTTP/1.1\nHost: a\r\n\r\n", 400},
    {"BareLfEndsHead", "GET /plaintext HTTP/1.1\r\nHost: a\r\n\n", 400},
    {"BareLfEndsTrailers", chunked_post + "3\r\nabc\r\n0\r\n\n", 400},
};

class BadInput : public ::testing::TestWithParam<bad_case> {
 protected:
  test_app app_;
  running_server server_{app_.routes()};
};

// A good request pipelined behind the bad one shows that nothing after the
// error is processed; a fresh connection, that the server keeps serving.
TEST_P(BadInput, IsAnsweredWithItsStatusAndClosed) {
  {
    raw_client client(server_.port());
    ASSERT_TRUE(client.send(GetParam().bytes + get_request("/plaintext")));
    expect_error_then_close(client, GetParam().status);
    EXPECT_EQ(app_.handled(), 0u);
  }
  expect_still_serving(server_.port());
}

std::string case_name(const ::testing::TestParamInfo<bad_case>& c) { return c.param.name; }

INSTANTIATE_TEST_SUITE_P(Requests, BadInput, ::testing::ValuesIn(bad_cases), case_name);

TEST(BadInputPipelining, GoodRequestsBeforeABadOneAreAnswered) {
  test_app app;
  running_server server(app.routes());
  raw_client client(server.port());
  ASSERT_TRUE(client.send(get_request("/query?1") + get_request("/query?2") + "GET /x HTTP/1.1\r\n\r\n" +
                          get_request("/query?never")));
  for (const char* expected : {"1", "2"}) {
    const auto r = client.read_response();
    ASSERT_TRUE(r);
    EXPECT_EQ(r->body, expected);
  }
  expect_error_then_close(client, 400);
  EXPECT_EQ(app.handled(), 2u);
}

// RFC 9110 2.5: a recipient SHOULD process a higher minor version of a major
// version it implements as the highest minor version it conforms to.
TEST(Versions, Http12IsServedAsHttp11) {
  test_app app;
  running_server server(app.routes());
  raw_client client(server.port());
  ASSERT_TRUE(client.send("GET /plaintext HTTP/1.2\r\nHost: a\r\n\r\n"));
  const auto r = client.read_response();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
}

// RFC 9112 5.2: obs-fold in a request is either rejected with 400 or each fold
// replaced by SP; never passed on with its CRLF.
TEST(ObsFold, IsRejectedOrUnfolded) {
  test_app app;
  running_server server(app.routes());
  raw_client client(server.port());
  ASSERT_TRUE(client.send("GET /header?X-Folded HTTP/1.1\r\nHost: a\r\nX-Folded: one\r\n two\r\n\r\n"));
  const auto r = client.read_response();
  ASSERT_TRUE(r);
  if (r->status == 400) {
    EXPECT_EQ(r->header("connection"), "close");
  } else {
    EXPECT_EQ(r->status, 200);
    EXPECT_EQ(r->body.find_first_of("\r\n"), std::string::npos);
    EXPECT_NE(r->body.find("two"), std::string::npos) << r->body;
  }
}

TEST(BadInputRecovery, ManyBadConnectionsDoNotDisturbAGoodOne) {
  test_app app;
  running_server server(app.routes());
  raw_client good(server.port());
  for (const bad_case& c : bad_cases) {
    raw_client bad(server.port());
    bad.send(c.bytes);
    const auto r = good.request("GET", "/query?" + std::string(c.name));
    ASSERT_TRUE(r) << c.name;
    EXPECT_EQ(r->body, c.name);
  }
}

}  // namespace
