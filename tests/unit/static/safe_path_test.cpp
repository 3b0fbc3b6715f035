#include "static/safe_path.hpp"

#include <gtest/gtest.h>

#include <string_view>

namespace {

using stet::detail::clean_path;
using stet::detail::clean_url_path;
using stet::detail::path_verdict;

clean_path clean(std::string_view raw, bool dotfiles = false) {
  static std::pmr::monotonic_buffer_resource arena;
  return clean_url_path(raw, arena, dotfiles);
}

TEST(SafePath, AcceptsOrdinaryPaths) {
  struct row {
    std::string_view raw;
    std::string_view path;
    bool directory;
  };
  const row rows[] = {
      {"app.css", "app.css", false},
      {"/app.css", "app.css", false},
      {"css/app.css", "css/app.css", false},
      {"a%20b.txt", "a b.txt", false},
      {"%E2%9C%93.txt", "\xE2\x9C\x93.txt", false},
      {"docs/", "docs", true},
      {"", "", true},
      {"/", "", true},
      {"a...b", "a...b", false},
      {"%252e%252e", "%2e%2e", false},  // decoded once: a literal name, not a traversal
  };
  for (const row& r : rows) {
    const clean_path p = clean(r.raw);
    EXPECT_EQ(p.verdict, path_verdict::ok) << r.raw;
    EXPECT_EQ(p.path, r.path) << r.raw;
    EXPECT_EQ(p.directory, r.directory) << r.raw;
  }
}

TEST(SafePath, RefusesTraversalAndEncodedSeparators) {
  const std::string_view rows[] = {
      "..",     "../x",   "a/../x",     "a/..",   "%2e%2e/x",     "%2E%2E/x",
      ".%2e/x", "%2e./x", "a/%2e%2e/x", "..%2fx", "a%2fb",        "a%2Fb",
      "..%5cx", "a%5cb",  "a\\b",       "..\\x",  "a%00b",        std::string_view("a\0b", 3),
      "%0d%0a", "a\nb",   "./x",        "a/./x",  "%2e/x",        "a//b",
      "//x",    "%",      "%2",         "%zz",    "%u002e%u002e", "a/%2e",
      "%2e%2e", "x%7f",
  };
  for (std::string_view raw : rows) {
    EXPECT_EQ(clean(raw).verdict, path_verdict::bad_request) << raw;
  }
}

TEST(SafePath, HidesDotfilesUnlessAsked) {
  EXPECT_EQ(clean(".env").verdict, path_verdict::hidden);
  EXPECT_EQ(clean(".git/config").verdict, path_verdict::hidden);
  EXPECT_EQ(clean("a/.hidden/b").verdict, path_verdict::hidden);
  EXPECT_EQ(clean("%2eenv").verdict, path_verdict::hidden);
  EXPECT_EQ(clean("...").verdict, path_verdict::hidden);
  EXPECT_EQ(clean(".env", true).verdict, path_verdict::ok);
  EXPECT_EQ(clean(".well-known/x", true).path, ".well-known/x");
  // ".." stays refused whatever the dotfile setting.
  EXPECT_EQ(clean("../x", true).verdict, path_verdict::bad_request);
  EXPECT_EQ(clean(".git/../x").verdict, path_verdict::bad_request);
}

TEST(SafePath, RefusesOverlongPaths) {
  EXPECT_EQ(clean(std::string(5000, 'a')).verdict, path_verdict::too_long);
  EXPECT_EQ(clean(std::string(2048, 'a')).verdict, path_verdict::ok);
}

TEST(SafePath, NoCopyWithoutEscapes) {
  const std::string_view raw = "a/b.css";
  EXPECT_EQ(clean(raw).path.data(), raw.data());
}

TEST(SafePath, CheckRelativePathForStaticUrl) {
  using stet::detail::check_relative_path;
  EXPECT_EQ(check_relative_path("app.css", false).path, "app.css");
  EXPECT_EQ(check_relative_path("/app.css", false).path, "app.css");
  EXPECT_EQ(check_relative_path("a%2fb", false).path, "a%2fb");  // already decoded: '%' is a plain byte
  EXPECT_EQ(check_relative_path("../x", false).verdict, path_verdict::bad_request);
  EXPECT_EQ(check_relative_path(".env", false).verdict, path_verdict::hidden);
}

}  // namespace
