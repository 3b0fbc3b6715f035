// stet's own 404/405/500 answers over the wire: one pre-rendered body per
// format, picked by the request's Accept header.
#include <stet/stet.hpp>

#include "support/http_client.hpp"
#include "support/test_server.hpp"

#include <gtest/gtest.h>
#include <simdjson.h>

#include <atomic>
#include <memory>
#include <stdexcept>
#include <string>

namespace {

using stet::request;
using stet::response;
using stet::test::raw_client;
using stet::test::running_server;

constexpr std::string_view html_404 =
    "<!DOCTYPE html>\n<html><head><title>404 Not Found</title></head><body><h1>404 Not Found</h1></body></html>\n";

stet::router routes(const std::shared_ptr<std::atomic<int>>& reports) {
  stet::router r;
  r.get("/only-get", [](request&) { return response::text("ok"); });
  r.get("/throws", [](request&) -> response { throw std::runtime_error("boom"); });
  r.on_error([reports](std::string_view) { reports->fetch_add(1); });
  return r;
}

struct fixture {
  std::shared_ptr<std::atomic<int>> reports = std::make_shared<std::atomic<int>>(0);
  running_server server{routes(reports)};
  raw_client client{server.port()};

  stet::test::http_response get(std::string_view target, std::string_view accept, std::string_view method = "GET") {
    const std::string extra = accept.empty() ? std::string() : "Accept: " + std::string(accept) + "\r\n";
    client.send(std::string(method) + " " + std::string(target) + " HTTP/1.1\r\nHost: t\r\n" + extra + "\r\n");
    auto r = client.read_response(method == "HEAD");
    EXPECT_TRUE(r) << method << " " << target << " Accept: " << accept;
    return r ? *r : stet::test::http_response{};
  }
};

// {"error": reason, "status": code}, checked by a real JSON parser.
void expect_json_error(const stet::test::http_response& r, int status, std::string_view reason) {
  EXPECT_EQ(r.status, status);
  EXPECT_EQ(r.header("content-type"), "application/json");
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(r.body).get(doc), simdjson::SUCCESS) << r.body;
  std::string_view error;
  std::int64_t code = 0;
  ASSERT_EQ(doc["error"].get(error), simdjson::SUCCESS) << r.body;
  ASSERT_EQ(doc["status"].get(code), simdjson::SUCCESS) << r.body;
  EXPECT_EQ(error, reason);
  EXPECT_EQ(code, status);
}

TEST(ErrorAnswers, NotFoundIsTextWithoutAcceptOrForAnyType) {
  fixture f;
  for (std::string_view accept : {"", "*/*", "text/*", "image/png", "text/plain, application/json"}) {
    const auto r = f.get("/nowhere", accept);
    EXPECT_EQ(r.status, 404) << accept;
    EXPECT_EQ(r.body, "Not Found\n") << accept;
    EXPECT_EQ(r.header("content-type"), "text/plain; charset=utf-8") << accept;
    EXPECT_EQ(r.header("vary"), "Accept") << accept;
  }
}

TEST(ErrorAnswers, NotFoundFollowsAcceptToHtml) {
  fixture f;
  for (std::string_view accept :
       {"text/html", "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8", "TEXT/HTML;level=1",
        "application/json;q=0, text/html", "text/plain;q=0.2, text/html;q=0.3, application/json;q=0.25"}) {
    const auto r = f.get("/nowhere", accept);
    EXPECT_EQ(r.status, 404) << accept;
    EXPECT_EQ(r.header("content-type"), "text/html; charset=utf-8") << accept;
    EXPECT_EQ(r.body, html_404) << accept;
  }
}

TEST(ErrorAnswers, NotFoundFollowsAcceptToJson) {
  fixture f;
  for (std::string_view accept : {"application/json", "application/*", "text/html;q=0.5, application/json",
                                  "*/*;q=0.1, application/json;q=0.9", "application/json; charset=utf-8; q=1"}) {
    SCOPED_TRACE(accept);
    expect_json_error(f.get("/nowhere", accept), 404, "Not Found");
  }
}

TEST(ErrorAnswers, MethodNotAllowedKeepsAllowInEveryFormat) {
  fixture f;
  const auto text = f.get("/only-get", "", "DELETE");
  EXPECT_EQ(text.status, 405);
  EXPECT_EQ(text.body, "Method Not Allowed\n");
  EXPECT_EQ(text.header("allow"), "GET, HEAD, OPTIONS");
  const auto json = f.get("/only-get", "application/json", "DELETE");
  expect_json_error(json, 405, "Method Not Allowed");
  EXPECT_EQ(json.header("allow"), "GET, HEAD, OPTIONS");
  const auto html = f.get("/only-get", "text/html", "POST");
  EXPECT_EQ(html.header("content-type"), "text/html; charset=utf-8");
  EXPECT_NE(html.body.find("<h1>405 Method Not Allowed</h1>"), std::string::npos);
  EXPECT_EQ(f.get("/only-get", "*/*", "PUT").body, "Method Not Allowed\n");
  expect_json_error(f.get("/only-get", "text/html;q=0.2, application/json;q=0.7", "PUT"), 405, "Method Not Allowed");
}

TEST(ErrorAnswers, HandlerExceptionIsA500ReportedOnce) {
  fixture f;
  const auto text = f.get("/throws", "");
  EXPECT_EQ(text.status, 500);
  EXPECT_EQ(text.body, "Internal Server Error\n");
  expect_json_error(f.get("/throws", "application/json"), 500, "Internal Server Error");
  const auto html = f.get("/throws", "text/html");
  EXPECT_NE(html.body.find("<h1>500 Internal Server Error</h1>"), std::string::npos);
  EXPECT_EQ(f.get("/throws", "*/*").body, "Internal Server Error\n");
  expect_json_error(f.get("/throws", "text/html;q=0.1, */*;q=0.2, application/json;q=0.3"), 500,
                    "Internal Server Error");
  // Five failing requests, five reports: the server logs each exception once
  // and keeps the connection serving.
  EXPECT_EQ(f.reports->load(), 5);
  EXPECT_EQ(f.get("/only-get", "").body, "ok");
}

TEST(ErrorAnswers, HeadGetsTheContentLengthOfTheNegotiatedBodyAndNoBody) {
  fixture f;
  for (std::string_view accept : {"", "text/html", "application/json"}) {
    const auto get = f.get("/nowhere", accept);
    const auto head = f.get("/nowhere", accept, "HEAD");
    EXPECT_EQ(head.status, 404) << accept;
    EXPECT_TRUE(head.body.empty()) << accept;
    EXPECT_EQ(head.header("content-length"), std::to_string(get.body.size())) << accept;
    EXPECT_EQ(head.header("content-type"), get.header("content-type")) << accept;
  }
  // Nothing stray followed the HEAD answers: the connection is still in step.
  EXPECT_EQ(f.get("/only-get", "").body, "ok");
}

TEST(ErrorAnswers, ConnectionLevelErrorsStayPlainText) {
  fixture f;
  f.client.send("GET /x HTTP/1.1\r\nAccept: application/json\r\n\r\n");  // no Host
  const auto r = f.client.read_response();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400);
  EXPECT_EQ(r->header("content-type"), "text/plain; charset=utf-8");
  EXPECT_TRUE(r->body.starts_with("Bad Request: ")) << r->body;
  EXPECT_EQ(r->header("content-length"), std::to_string(r->body.size()));
}

}  // namespace
