#include "response/error_pages.hpp"

#include <stet/router.hpp>
#include <stet/test_request.hpp>

#include "support/alloc_counter.hpp"

#include <gtest/gtest.h>

namespace {

using stet::method;
using stet::status;
using stet::detail::error_format;
using stet::detail::error_page;

TEST(ErrorPages, BodiesAreRenderedOnceAndShared) {
  const stet::response a = error_page(status::not_found, error_format::json);
  const stet::response b = error_page(status::not_found, error_format::json);
  EXPECT_EQ(a.body(), R"({"error":"Not Found","status":404})");
  EXPECT_EQ(a.body().data(), b.body().data());  // the same bytes, not a copy
  EXPECT_EQ(a.header("content-type"), "application/json");
  EXPECT_EQ(a.header("vary"), "Accept");
  EXPECT_EQ(a.content_length(), a.body().size());
}

TEST(ErrorPages, EveryFormatOfAStatus) {
  EXPECT_EQ(error_page(status::method_not_allowed, error_format::text).body(), "Method Not Allowed\n");
  EXPECT_EQ(error_page(status::internal_server_error, error_format::html).body(),
            "<!DOCTYPE html>\n<html><head><title>500 Internal Server Error</title></head>"
            "<body><h1>500 Internal Server Error</h1></body></html>\n");
  EXPECT_EQ(error_page(status::internal_server_error, error_format::html).header("content-type"),
            "text/html; charset=utf-8");
  EXPECT_EQ(error_page(status::too_many_requests, error_format::json).body(),
            R"({"error":"Too Many Requests","status":429})");
  EXPECT_EQ(error_page(status::too_many_requests, error_format::text).status(), status::too_many_requests);
}

TEST(ErrorPages, ConnectionErrorsAreTextPerErrorValue) {
  const stet::response r = error_page(stet::error::header_too_large);
  EXPECT_EQ(r.status(), status::request_header_fields_too_large);
  EXPECT_EQ(r.header("content-type"), "text/plain; charset=utf-8");
  EXPECT_EQ(r.body(),
            "Request Header Fields Too Large: " + make_error_code(stet::error::header_too_large).message() + "\n");
  EXPECT_EQ(r.body().data(), error_page(stet::error::header_too_large).body().data());
}

TEST(ErrorPages, RouterAnswersFollowAccept) {
  stet::router r;
  r.get("/x", [](stet::request&) { return stet::response::text("x"); });
  stet::test_request json(method::get, "/missing");
  json.header("Accept", "text/html;q=0.4, application/json;q=0.8");
  stet::test_request html(method::post, "/x");
  html.header("Accept", "text/html");
  stet::test_request plain(method::get, "/missing");
  EXPECT_EQ(r.handle(json).body(), R"({"error":"Not Found","status":404})");
  const stet::response not_allowed = r.handle(html);
  EXPECT_EQ(not_allowed.status(), status::method_not_allowed);
  EXPECT_EQ(not_allowed.header("content-type"), "text/html; charset=utf-8");
  EXPECT_EQ(not_allowed.header("allow"), "GET, HEAD, OPTIONS");
  EXPECT_EQ(r.handle(plain).body(), "Not Found\n");

  // Once warm, choosing and building any of them allocates nothing.
  const stet::test::allocation_scope scope;
  for (int i = 0; i < 100; ++i) {
    r.handle(json);
    r.handle(html);
    r.handle(plain);
  }
  EXPECT_EQ(scope.count(), 0u);
}

// RFC 9110 5.3: Accept sent as two lines is one list; the first line alone
// prefers HTML.
TEST(ErrorPages, AcceptOfSeveralLinesIsOneList) {
  stet::test_request q(method::get, "/missing");
  q.header("Accept", "text/html;q=0.4").header("accept", "application/json;q=0.8");
  EXPECT_EQ(error_page(status::not_found, q.get()).header("content-type"), "application/json");
}

}  // namespace
