#include <stet/error.hpp>
#include <stet/response.hpp>

#include <gtest/gtest.h>

namespace {

using stet::response;
using stet::status;

TEST(Response, TextSetsTypeAndBody) {
  const response r = response::text("hi");
  EXPECT_EQ(r.status(), status::ok);
  EXPECT_EQ(r.body(), "hi");
  EXPECT_EQ(r.header("content-type"), "text/plain; charset=utf-8");
  EXPECT_EQ(r.header_block(), "Content-Type: text/plain; charset=utf-8\r\n");
}

TEST(Response, HeaderInjectionIsRefusedAndNothingWritten) {
  response r;
  EXPECT_EQ(r.add_header("X-A", "a\r\nSet-Cookie: evil=1"), stet::error::invalid_header_value);
  EXPECT_EQ(r.add_header("X-A", std::string_view("a\0b", 3)), stet::error::invalid_header_value);
  EXPECT_EQ(r.add_header("X-A", "a\nb"), stet::error::invalid_header_value);
  EXPECT_EQ(r.add_header("Bad Name", "v"), stet::error::invalid_header_name);
  EXPECT_EQ(r.add_header("X:Y", "v"), stet::error::invalid_header_name);
  EXPECT_EQ(r.add_header("", "v"), stet::error::invalid_header_name);
  EXPECT_EQ(r.header_block(), "");
}

TEST(Response, WriterOwnedFieldsAreReserved) {
  response r;
  for (const char* name : {"Content-Length", "transfer-encoding", "DATE", "Server", "Connection"}) {
    EXPECT_EQ(r.add_header(name, "x"), stet::error::reserved_header) << name;
  }
  EXPECT_EQ(r.header_block(), "");
}

TEST(Response, AddRepeatsSetReplaces) {
  response r;
  EXPECT_FALSE(r.add_header("Set-Cookie", "a=1"));
  EXPECT_FALSE(r.add_header("Set-Cookie", "b=2"));
  EXPECT_FALSE(r.add_header("X-Other", "o"));
  EXPECT_EQ(r.header_block(), "Set-Cookie: a=1\r\nSet-Cookie: b=2\r\nX-Other: o\r\n");
  EXPECT_FALSE(r.set_header("set-cookie", "c=3"));
  EXPECT_EQ(r.header_block(), "X-Other: o\r\nset-cookie: c=3\r\n");
}

TEST(Response, WithHeaderThrowsOnInvalidInput) {
  EXPECT_THROW(response::text("x").with_header("X", "a\rb"), std::invalid_argument);
  EXPECT_EQ(response::text("x").with_header("X-Ok", "  padded  ").header("x-ok"), "padded");
}

TEST(Response, RedirectCarriesLocation) {
  const response r = response::redirect(status::moved_permanently, "/there?x=1");
  EXPECT_EQ(r.status(), status::moved_permanently);
  EXPECT_EQ(r.header("Location"), "/there?x=1");
}

TEST(Response, CopiesAndMovesKeepContent) {
  response a = response::text(std::string(1000, 'x'));
  response b = a;
  response c = std::move(a);
  EXPECT_EQ(b.body().size(), 1000u);
  EXPECT_EQ(c.body(), b.body());
  EXPECT_EQ(c.header_block(), b.header_block());
}

}  // namespace
