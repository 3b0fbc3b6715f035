#include <stet/multipart_form.hpp>

#include <gtest/gtest.h>

#include <string>

namespace {

constexpr std::string_view content_type = "multipart/form-data; boundary=b0undary";

std::string text(std::string_view name, std::string_view value) {
  return "--b0undary\r\nContent-Disposition: form-data; name=\"" + std::string(name) + "\"\r\n\r\n" +
         std::string(value) + "\r\n";
}

std::string file(std::string_view name, std::string_view filename, std::string_view data) {
  return "--b0undary\r\nContent-Disposition: form-data; name=\"" + std::string(name) + "\"; filename=\"" +
         std::string(filename) + "\"\r\nContent-Type: application/octet-stream\r\n\r\n" + std::string(data) + "\r\n";
}

constexpr std::string_view end = "--b0undary--\r\n";

TEST(MultipartForm, CollectsTextFieldsAndSkipsFiles) {
  const std::string body = text("title", "Hello") + file("upload", "a.bin", std::string(10000, 'z')) +
                           text("tag", "b") + text("tag", "a") + text("empty", "") + std::string(end);
  stet::multipart_form form;
  ASSERT_FALSE(stet::parse_multipart_form(content_type, body, form));
  const stet::form_data f = form.fields();
  EXPECT_EQ(f.size(), 4u);
  EXPECT_EQ(f.get("title"), "Hello");
  EXPECT_EQ(f.get("empty"), "");
  EXPECT_FALSE(f.get("upload"));
  ASSERT_EQ(f.get_all("tag").size(), 2u);
  EXPECT_EQ(f.get_all("tag")[0].value, "b");
  EXPECT_EQ(f.get_all("tag")[1].value, "a");
  EXPECT_EQ(f.all()[0].name, "title");
  EXPECT_EQ(f.sorted()[0].name, "empty");
}

TEST(MultipartForm, TextSurvivesTheReleaseOfItsPieces) {
  const std::string body = text("note", "spread over many pieces") + std::string(end);
  stet::multipart_parser parser(content_type);
  stet::multipart_form form;
  for (char c : body) {
    std::string piece(1, c);
    parser.consume(piece, [&](const stet::multipart_event& e) { ASSERT_FALSE(form.add(parser, e)); });
    piece[0] = '#';
  }
  EXPECT_TRUE(parser.done());
  EXPECT_EQ(form.fields().get("note"), "spread over many pieces");
}

TEST(MultipartForm, FieldAndTotalLimits) {
  stet::multipart_form_options limits;
  limits.max_field_bytes = 5;
  limits.max_total_bytes = 12;
  {
    stet::multipart_form form(limits);
    EXPECT_FALSE(stet::parse_multipart_form(content_type, text("a", "12345") + std::string(end), form));
  }
  {
    stet::multipart_form form(limits);
    const stet::multipart_error e =
        stet::parse_multipart_form(content_type, text("a", "123456") + std::string(end), form);
    EXPECT_EQ(e.code, stet::error::multipart_part_too_large);
    EXPECT_EQ(e.status(), stet::status::payload_too_large);
  }
  {
    stet::multipart_form form(limits);
    const stet::multipart_error e =
        stet::parse_multipart_form(content_type, text("a", "12345") + text("bb", "12345") + std::string(end), form);
    EXPECT_EQ(e.code, stet::error::multipart_part_too_large);
    EXPECT_NE(e.message().find("total"), std::string::npos);
  }
  {
    stet::multipart_form form(limits);  // file parts do not count
    EXPECT_FALSE(
        stet::parse_multipart_form(content_type, file("f", "x", std::string(100, 'x')) + std::string(end), form));
  }
}

TEST(MultipartForm, ReportsTheParsersError) {
  stet::multipart_form form;
  EXPECT_EQ(stet::parse_multipart_form(content_type, text("a", "1"), form).code, stet::error::multipart_truncated);
  EXPECT_EQ(stet::parse_multipart_form("text/plain", "", form).code, stet::error::unsupported_media_type);
}

}  // namespace
