// stet-server's GET /report.json over the wire: the benchmark's dynamic body.
#include <stet/stet.hpp>

#include "report.hpp"
#include "response/compress/response_compression.hpp"
#include "support/codecs.hpp"
#include "support/http_client.hpp"
#include "support/test_server.hpp"

#include <gtest/gtest.h>
#include <simdjson.h>

#include <string>

namespace {

stet::router report_routes() {
  stet::router r;
  stet_server::add_report_routes(r);
  return r;
}

TEST(Report, IsValidDeterministicJsonOfAbout60KB) {
  stet::test::running_server server{report_routes()};
  stet::test::raw_client client{server.port()};
  const auto first = client.request("GET", "/report.json");
  const auto second = client.request("GET", "/report.json");
  ASSERT_TRUE(first && second);
  EXPECT_EQ(first->status, 200);
  EXPECT_EQ(first->header("content-type"), "application/json");
  EXPECT_EQ(first->body, second->body) << "the same bytes on every request";
  EXPECT_GT(first->body.size(), 50u * 1024);
  EXPECT_LT(first->body.size(), 70u * 1024);

  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(first->body).get(doc), simdjson::SUCCESS);
  simdjson::dom::array regions;
  ASSERT_EQ(doc["regions"].get(regions), simdjson::SUCCESS);
  EXPECT_EQ(regions.size(), 6u);
  std::string_view title;
  ASSERT_EQ(doc["title"].get(title), simdjson::SUCCESS);
  EXPECT_EQ(title, "Quarterly sales \"Q3\" report") << "escapes read back";
  simdjson::dom::array notes;
  ASSERT_EQ(doc["footnotes"].get(notes), simdjson::SUCCESS);
  std::string_view unicode;
  ASSERT_EQ(notes.at(3).get(unicode), simdjson::SUCCESS);
  EXPECT_NE(unicode.find("\x01"), std::string_view::npos) << "a control byte survives as \\u0001";
  double price = 0;
  ASSERT_EQ(regions.at(0)["stores"].at(0)["sales"].at(0)["unit_price"].get(price), simdjson::SUCCESS);
  EXPECT_GT(price, 0.0);
}

// The document compresses as a real API answer does, through the entry point
// the connection will call.
TEST(Report, CompressesThroughTheResponseEntryPoint) {
  stet::test_request q(stet::method::get, "/report.json");
  q.header("Accept-Encoding", "gzip, deflate, br, zstd");
  stet::response r = report_routes().handle(q);
  const std::string plain(r.body());
  stet::compression_options s;
  s.enabled = true;
  EXPECT_EQ(stet::detail::compress_response(q, r, s).coding, stet::content_coding::br);
  EXPECT_LT(r.body().size(), plain.size() / 4);
  EXPECT_EQ(stet::test::reference_decode(stet::content_coding::br, r.body()), plain);
}

}  // namespace
