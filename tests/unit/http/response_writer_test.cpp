#include "http/response_writer.hpp"

#include <stet/response.hpp>
#include <stet/stream.hpp>

#include <gtest/gtest.h>

#include <fcntl.h>

#include <memory>
#include <string>
#include <string_view>

namespace {

using stet::response;
using stet::status;
using stet::detail::framing;
using stet::detail::response_writer;

// The head without its Date value (the clock moves); the Date line is checked
// to be there, once, in IMF-fixdate form ("Sun, 06 Nov 1994 08:49:37 GMT").
std::string without_date(std::string head) {
  const std::size_t at = head.find("Date: ");
  EXPECT_NE(at, std::string::npos) << head;
  if (at == std::string::npos) return head;
  const std::size_t end = head.find("\r\n", at);
  const std::string_view value = std::string_view(head).substr(at + 6, end - at - 6);
  EXPECT_EQ(value.size(), 29u) << value;
  EXPECT_TRUE(value.ends_with(" GMT")) << value;
  EXPECT_EQ(value[3], ',') << value;
  EXPECT_EQ(head.find("Date: ", end), std::string::npos) << "two Date lines";
  head.replace(at + 6, end - at - 6, "<date>");
  return head;
}

std::string head_of(response_writer& w, const response& r, framing how = {}) {
  std::string out;
  w.append_head(out, r, how);
  return without_date(std::move(out));
}

TEST(ResponseWriter, StatusLineServerDateFieldsAndContentLength) {
  response_writer w("stet-test");
  response r = response::text("hello");
  r.add_header("X-A", "1");
  EXPECT_EQ(head_of(w, r),
            "HTTP/1.1 200 OK\r\n"
            "Server: stet-test\r\n"
            "Date: <date>\r\n"
            "Content-Type: text/plain; charset=utf-8\r\n"
            "X-A: 1\r\n"
            "Content-Length: 5\r\n"
            "\r\n");
}

TEST(ResponseWriter, NoServerLineWithoutAName) {
  response_writer w("");
  EXPECT_EQ(head_of(w, response(status::not_found)),
            "HTTP/1.1 404 Not Found\r\n"
            "Date: <date>\r\n"
            "Content-Length: 0\r\n"
            "\r\n");
}

TEST(ResponseWriter, StatusLinesComeFromTheTable) {
  response_writer w("");
  const auto first_line = [&](status s) {
    const std::string head = head_of(w, response(s));
    return head.substr(0, head.find("\r\n"));
  };
  EXPECT_EQ(first_line(status::moved_permanently), "HTTP/1.1 301 Moved Permanently");
  EXPECT_EQ(first_line(status::service_unavailable), "HTTP/1.1 503 Service Unavailable");
  EXPECT_EQ(first_line(static_cast<status>(299)), "HTTP/1.1 299 ");  // a code without a phrase keeps its number
  // Codes outside 100..599 cannot go on the wire: they are sent as 500.
  EXPECT_EQ(first_line(static_cast<status>(42)), "HTTP/1.1 500 Internal Server Error");
  EXPECT_EQ(first_line(static_cast<status>(600)), "HTTP/1.1 500 Internal Server Error");
}

TEST(ResponseWriter, ConnectionFieldOnlyWhenNeeded) {
  response_writer w("");
  const response r = response::text("x");
  const std::string keep = head_of(w, r);
  EXPECT_EQ(keep.find("Connection:"), std::string::npos) << keep;
  const std::string close = head_of(w, r, {.close = true});
  EXPECT_TRUE(close.ends_with("Content-Length: 1\r\nConnection: close\r\n\r\n")) << close;
  const std::string http10 = head_of(w, r, {.keep_alive_http10 = true});
  EXPECT_TRUE(http10.ends_with("Content-Length: 1\r\nConnection: keep-alive\r\n\r\n")) << http10;
  // Closing wins over an HTTP/1.0 keep-alive.
  const std::string both = head_of(w, r, {.close = true, .keep_alive_http10 = true});
  EXPECT_TRUE(both.ends_with("Connection: close\r\n\r\n")) << both;
  EXPECT_EQ(both.find("keep-alive"), std::string::npos) << both;
}

TEST(ResponseWriter, AppendAddsTheBodyAfterTheHead) {
  response_writer w("");
  const response r = response::text("hello");
  std::string out = "previous bytes|";
  w.append(out, r, {});
  EXPECT_TRUE(out.starts_with("previous bytes|HTTP/1.1 200 OK\r\n")) << out;
  EXPECT_TRUE(out.ends_with("Content-Length: 5\r\n\r\nhello")) << out;
}

TEST(ResponseWriter, HeadKeepsContentLengthAndDropsTheBody) {
  response_writer w("");
  const response r = response::text("hello");
  const framing head{.head_request = true};
  EXPECT_FALSE(response_writer::sends_body(r, head));
  std::string out;
  w.append(out, r, head);
  EXPECT_TRUE(out.ends_with("Content-Length: 5\r\n\r\n")) << out;
  EXPECT_EQ(out.find("hello"), std::string::npos) << out;
}

TEST(ResponseWriter, HeadOfACompressedVariantSendsNoLength) {
  response_writer w("");
  const response r = response::text("hello");
  const framing head{.head_request = true, .no_content_length = true};
  std::string out;
  w.append(out, r, head);
  EXPECT_EQ(out.find("Content-Length"), std::string::npos) << out;
  EXPECT_TRUE(out.ends_with("\r\n\r\n")) << out;
}

TEST(ResponseWriter, NoContentAndNotModifiedHaveNoLengthAndNoBody) {
  response_writer w("");
  for (const status s : {status::no_content, status::not_modified, status::continue_}) {
    response r(s);
    r.set_body(std::string_view("ignored"));
    EXPECT_FALSE(response_writer::sends_body(r, {})) << to_int(s);
    std::string out;
    w.append(out, r, {});
    EXPECT_EQ(out.find("Content-Length"), std::string::npos) << out;
    EXPECT_EQ(out.find("ignored"), std::string::npos) << out;
    EXPECT_TRUE(out.ends_with("\r\n\r\n")) << out;
  }
}

TEST(ResponseWriter, ChunkedHeadHasTransferEncodingInsteadOfLength) {
  response_writer w("");
  response r;
  r.set_stream([](stet::stream_writer&) { return false; });
  const std::string chunked = head_of(w, r, {.chunked = true});
  EXPECT_TRUE(chunked.ends_with("Date: <date>\r\nTransfer-Encoding: chunked\r\n\r\n")) << chunked;
  EXPECT_EQ(chunked.find("Content-Length"), std::string::npos) << chunked;
  // A stream sent until close (HTTP/1.0) has neither.
  const std::string until_close = head_of(w, r, {.close = true});
  EXPECT_EQ(until_close.find("Content-Length"), std::string::npos) << until_close;
  EXPECT_EQ(until_close.find("Transfer-Encoding"), std::string::npos) << until_close;
  EXPECT_TRUE(until_close.ends_with("Connection: close\r\n\r\n")) << until_close;
}

TEST(ResponseWriter, FileBodyCountsInContentLengthButIsNotCopied) {
  response_writer w("");
  const int fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  response r;
  r.set_file(std::make_shared<const stet::file_source>(fd), 10, 1234);
  EXPECT_TRUE(response_writer::sends_body(r, {}));
  std::string out;
  w.append(out, r, {});
  EXPECT_TRUE(out.ends_with("Content-Length: 1234\r\n\r\n")) << out;
}

TEST(ResponseWriter, DateComesFromTheWritersCache) {
  response_writer w("");
  std::string out;
  w.append_head(out, response(), {});
  const std::uint64_t refreshes = w.dates().refreshes();
  EXPECT_GE(refreshes, 1u);
  for (int i = 0; i < 100; ++i) w.append_head(out, response(), {});
  // At most one reformat per second, whatever the number of responses.
  EXPECT_LE(w.dates().refreshes(), refreshes + 1);
}

TEST(ResponseWriter, ContinueLine) { EXPECT_EQ(response_writer::continue_line(), "HTTP/1.1 100 Continue\r\n\r\n"); }

}  // namespace
