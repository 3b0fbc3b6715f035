// Every redirect stet builds itself (trailing slash, a static directory
// without its '/', a static mount's bare prefix) stays on this site, whatever
// the client puts at the start of the path: "//host" and "/\host" in a
// Location are another host to a browser. Sent raw over a real socket.
#include <stet/stet.hpp>

#include "support/http_client.hpp"
#include "support/static_tree.hpp"
#include "support/test_server.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace {

using stet::test::raw_client;
using stet::test::running_server;
using stet::test::temp_tree;

// How a browser reads a Location: tabs and newlines removed, '\' taken as '/'
// (WHATWG URL parsing for http); "//" then starts an authority, i.e. a host.
bool stays_on_site(std::string location) {
  std::erase_if(location, [](char c) { return c == '\t' || c == '\n' || c == '\r'; });
  std::replace(location.begin(), location.end(), '\\', '/');
  return location.starts_with('/') && !location.starts_with("//");
}

// What a GET of `target` answers: the status and the Location ("" for none).
using answer = std::pair<int, std::string>;
answer redirect_of(std::uint16_t port, std::string_view target) {
  raw_client client(port);
  const auto r = client.request("GET", target);
  if (!r) return {0, "no answer"};
  return {r->status, r->header("location").value_or("")};
}

const std::vector<std::string> hostile_targets = {
    "//evil.example/",          "//evil.example",           "///evil.example/",
    "//evil.example/static",    "//evil.example/static/",   "//evil.example/docs/",
    "//evil.example?x=1",       "//evil.example/?next=//e", "/\\evil.example/",
    "/\\evil.example",          "/\\/evil.example/",        "/%2F/evil.example/",
    "/%2fevil.example/",        "/%5Cevil.example/",        "/%5cevil.example",
    "/.//evil.example/",        "/static//evil.example",    "/static//evil.example/",
    "/static///evil.example",   "/static/\\evil.example",   "/static/%2F%2Fevil.example",
    "/static/..//evil.example", "/static?//evil.example",   "/docs//evil.example/",
};

class OffSiteRedirect : public ::testing::Test {
 protected:
  void SetUp() override {
    tree_.write("site/evil.example/index.html", "a directory named like a host");
    tree_.write("site/docs/index.html", "docs");
    tree_.write("site/static/index.html", "a directory named static");
    files_ = std::make_shared<stet::static_files>(tree_.path("site").string());
  }

  // Sends every hostile target with GET and POST; no answer may send the
  // client elsewhere. Returns how many of them were redirects.
  int expect_no_offsite_redirect(std::uint16_t port) {
    int redirects = 0;
    for (const std::string& target : hostile_targets) {
      for (const std::string_view method : {"GET", "POST"}) {
        raw_client client(port);
        const auto r = client.request(method, target);
        if (!r) continue;  // a refused request line closes the connection: fine
        if (r->status < 300 || r->status >= 400) continue;
        ++redirects;
        const auto location = r->header("location");
        EXPECT_TRUE(location) << method << ' ' << target;
        if (!location) continue;
        EXPECT_TRUE(stays_on_site(*location)) << method << ' ' << target << " -> " << *location;
      }
    }
    return redirects;
  }

  temp_tree tree_;
  std::shared_ptr<stet::static_files> files_;
};

TEST_F(OffSiteRedirect, RouterTrailingSlashAndStaticMount) {
  stet::router r;
  r.get("/docs", [](stet::request&) { return stet::response::text("docs"); });
  r.get("/{a}", [](stet::request&) { return stet::response::text("one"); });
  r.get("/{a}/{b}", [](stet::request&) { return stet::response::text("two"); });
  r.post("/{a}/{b}", [](stet::request&) { return stet::response::text("two"); });
  stet::mount(r, "/static", files_);
  running_server server(std::move(r));

  // The three redirects do happen, so the guard has something to guard.
  EXPECT_EQ(redirect_of(server.port(), "/docs/?x=1"), answer(301, "/docs?x=1"));
  EXPECT_EQ(redirect_of(server.port(), "/static?x=1"), answer(301, "/static/?x=1"));
  EXPECT_EQ(redirect_of(server.port(), "/static/evil.example"), answer(301, "/static/evil.example/"));

  EXPECT_GT(expect_no_offsite_redirect(server.port()), 0);
}

TEST_F(OffSiteRedirect, RouterMissingSlash) {
  stet::router r(stet::router_options{.redirect_trailing_slash = false, .redirect_missing_slash = true});
  r.get("/{a}/", [](stet::request&) { return stet::response::text("one"); });
  r.get("/{a}/{b}/", [](stet::request&) { return stet::response::text("two"); });
  r.post("/{a}/{b}/", [](stet::request&) { return stet::response::text("two"); });
  running_server server(std::move(r));

  EXPECT_EQ(redirect_of(server.port(), "/evil.example"), answer(301, "/evil.example/"));

  EXPECT_GT(expect_no_offsite_redirect(server.port()), 0);
}

TEST_F(OffSiteRedirect, StaticFilesMountedAtTheRoot) {
  stet::router r;
  stet::mount(r, "/", files_);
  running_server server(std::move(r));

  EXPECT_EQ(redirect_of(server.port(), "/evil.example?x=1"), answer(301, "/evil.example/?x=1"));
  // The one spelling the root mount serves with a leading "//": the directory
  // itself is found, but "//evil.example/" cannot be said in a Location.
  EXPECT_EQ(redirect_of(server.port(), "//evil.example"), answer(404, ""));

  EXPECT_GT(expect_no_offsite_redirect(server.port()), 0);
}

}  // namespace
