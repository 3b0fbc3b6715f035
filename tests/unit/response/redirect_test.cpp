#include "response/redirect.hpp"

#include <stet/test_request.hpp>

#include <gtest/gtest.h>

#include <memory_resource>
#include <string>
#include <vector>

namespace {

using stet::status;
using stet::detail::add_slash;
using stet::detail::local_location;
using stet::detail::local_redirect;

TEST(Redirect, LocationKeepsPathSlashAndQuery) {
  std::pmr::monotonic_buffer_resource arena;
  EXPECT_EQ(local_location("/docs", add_slash::yes, "", arena), "/docs/");
  EXPECT_EQ(local_location("/docs", add_slash::no, "", arena), "/docs");
  EXPECT_EQ(local_location("/a%20b", add_slash::yes, "x=1&y=%2F", arena), "/a%20b/?x=1&y=%2F");
  EXPECT_EQ(local_location("", add_slash::yes, "", arena), "/");
  EXPECT_EQ(local_location("/", add_slash::no, "next=//evil", arena), "/?next=//evil");
  EXPECT_EQ(local_location("/static//evil.example", add_slash::yes, "", arena), "/static//evil.example/");
}

TEST(Redirect, LocationNeverNamesAnotherHost) {
  std::pmr::monotonic_buffer_resource arena;
  const std::vector<std::string> paths = {"//evil.example",
                                          "///evil.example",
                                          "/\\evil.example",
                                          "/\\/evil",
                                          "//",
                                          "/\t/evil",
                                          "/\n/evil",
                                          "/\r/evil",
                                          std::string("/\0/evil", 7),
                                          "/\x7f",
                                          "evil.example",
                                          "http://evil.example",
                                          "\\\\evil.example"};
  for (const std::string& path : paths) {
    EXPECT_FALSE(local_location(path, add_slash::yes, "", arena)) << path;
    EXPECT_FALSE(local_location(path, add_slash::no, "q", arena)) << path;
  }
  // An empty path with no slash added says nothing at all.
  EXPECT_FALSE(local_location("", add_slash::no, "x=1", arena));
}

TEST(Redirect, ResponseCarriesLocationOrIsNotFound) {
  stet::test_request ok(stet::method::get, "/docs?x=1");
  const stet::response r = local_redirect(ok.get(), status::moved_permanently, ok.get().raw_path(), add_slash::yes);
  EXPECT_EQ(r.status(), status::moved_permanently);
  EXPECT_EQ(r.header("Location"), "/docs/?x=1");

  stet::test_request evil(stet::method::get, "//evil.example?x=1");
  const stet::response refused =
      local_redirect(evil.get(), status::permanent_redirect, evil.get().raw_path(), add_slash::yes);
  EXPECT_EQ(refused.status(), status::not_found);
  EXPECT_FALSE(refused.header("Location"));
}

}  // namespace
