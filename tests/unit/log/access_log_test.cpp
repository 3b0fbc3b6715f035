// The access log formatter on its own: every format, the escaping of the
// client-controlled fields, sampling, and batching into the sink (a real
// writer thread appending to a scratch file).
#include "log/access_log.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace {

using stet::access_log_format;
using stet::detail::access_log;
using stet::detail::access_log_sink;
using stet::detail::access_record;

access_record sample_record() {
  access_record r;
  r.remote = "127.0.0.1";
  r.method = "GET";
  r.target = "/a?b=1";
  r.status = 200;
  r.bytes = 5;
  r.referer = "http://ref/";
  r.user_agent = "tester/1";
  return r;
}

class AccessLogFormat : public ::testing::Test {
 protected:
  void TearDown() override { std::filesystem::remove(path_); }

  // Formats `records` with `options`, flushes, stops the writer and returns
  // what reached the file, line by line.
  std::vector<std::string> write(const std::vector<access_record>& records, stet::access_log_options options = {}) {
    std::filesystem::remove(path_);  // the sink appends
    {
      access_log_sink sink(path_.string());
      EXPECT_FALSE(sink.open_error());
      access_log log(&sink, options);
      for (const access_record& r : records) log.append(r);
      log.flush();
    }  // the sink writes what is queued before it stops
    std::ifstream in(path_);
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
  }
  std::string one_line(const access_record& r, access_log_format format) {
    stet::access_log_options o;
    o.format = format;
    const auto lines = write({r}, o);
    EXPECT_EQ(lines.size(), 1u);
    return lines.empty() ? std::string() : lines.front();
  }

  std::filesystem::path path_ =
      std::filesystem::temp_directory_path() / ("stet-unit-access-" + std::to_string(::getpid()) + ".log");
};

TEST_F(AccessLogFormat, CommonLine) {
  const std::string line = one_line(sample_record(), access_log_format::common);
  const std::regex clf(
      R"(127\.0\.0\.1 - - \[\d\d/[A-Z][a-z]{2}/\d{4}:\d\d:\d\d:\d\d \+0000\] "GET /a\?b=1 HTTP/1\.1" 200 5)");
  EXPECT_TRUE(std::regex_match(line, clf)) << line;
}

TEST_F(AccessLogFormat, CombinedLineAddsRefererAndUserAgent) {
  const std::string line = one_line(sample_record(), access_log_format::combined);
  EXPECT_TRUE(line.ends_with(R"(] "GET /a?b=1 HTTP/1.1" 200 5 "http://ref/" "tester/1")")) << line;
  access_record bare = sample_record();
  bare.referer = {};
  bare.user_agent = {};
  const std::string dashes = one_line(bare, access_log_format::combined);
  EXPECT_TRUE(dashes.ends_with(R"(200 5 "-" "-")")) << dashes;
}

TEST_F(AccessLogFormat, JsonLine) {
  access_record r = sample_record();
  r.version = 10;
  r.status = 404;
  const std::string line = one_line(r, access_log_format::json);
  const std::regex json(
      R"(\{"time":"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ","remote":"127\.0\.0\.1","method":"GET","target":"/a\?b=1",)"
      R"("version":"HTTP/1\.0","status":404,"bytes":5,"referer":"http://ref/","user_agent":"tester/1"\})");
  EXPECT_TRUE(std::regex_match(line, json)) << line;
}

TEST_F(AccessLogFormat, HttpVersion10And11) {
  access_record r = sample_record();
  r.version = 10;
  EXPECT_NE(one_line(r, access_log_format::common).find("\"GET /a?b=1 HTTP/1.0\""), std::string::npos);
  r.method = "-";  // a request line that was not understood
  r.target = "-";
  r.version = 11;
  r.status = 400;
  r.bytes = 0;
  EXPECT_NE(one_line(r, access_log_format::common).find("\"- - HTTP/1.1\" 400 0"), std::string::npos);
}

TEST_F(AccessLogFormat, TextEscapesQuotesBackslashesControlsAndHighBytes) {
  access_record r = sample_record();
  r.target = "/a\"b\\c\x01\x7f\xc3\xa9";
  r.referer = "x\" \"forged";
  r.user_agent = "line\nbreak\r\tend";
  const std::string line = one_line(r, access_log_format::combined);
  EXPECT_NE(line.find(R"("GET /a\"b\\c\x01\x7F\xC3\xA9 HTTP/1.1")"), std::string::npos) << line;
  EXPECT_NE(line.find(R"("x\" \"forged")"), std::string::npos) << line;
  EXPECT_NE(line.find(R"("line\x0Abreak\x0D\x09end")"), std::string::npos) << line;
}

TEST_F(AccessLogFormat, JsonEscapesQuotesBackslashesAndControlsKeepsUtf8) {
  access_record r = sample_record();
  r.method = "G\"T";
  r.target = "/a\\b\x01\xc3\xa9";
  r.referer = "\"}";
  r.user_agent = "a\nb\x7f";
  const std::string line = one_line(r, access_log_format::json);
  EXPECT_NE(line.find(R"("method":"G\"T")"), std::string::npos) << line;
  EXPECT_NE(line.find("\"target\":\"/a\\\\b\\u0001\xc3\xa9\""), std::string::npos) << line;
  EXPECT_NE(line.find(R"("referer":"\"}")"), std::string::npos) << line;
  EXPECT_NE(line.find(R"("user_agent":"a\u000ab\u007f")"), std::string::npos) << line;
}

TEST_F(AccessLogFormat, OneLinePerRecordInOrder) {
  std::vector<access_record> records(3, sample_record());
  records[1].target = "/second";
  records[2].target = "/third";
  const auto lines = write(records);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_NE(lines[0].find("/a?b=1"), std::string::npos);
  EXPECT_NE(lines[1].find("/second"), std::string::npos);
  EXPECT_NE(lines[2].find("/third"), std::string::npos);
}

TEST_F(AccessLogFormat, FullBatchIsHandedOverWithoutAFlush) {
  std::size_t lines = 0;
  {
    access_log_sink sink(path_.string());
    access_log log(&sink, {});
    access_record r = sample_record();
    const std::string long_target(1000, 'x');
    r.target = long_target;
    while (lines * 1000 < 2 * access_log::batch_bytes) {
      log.append(r);
      ++lines;
    }
    EXPECT_TRUE(log.pending());  // the tail of the last batch, not yet handed over
  }                              // no flush: only full batches reached the sink
  std::ifstream in(path_);
  std::size_t written = 0;
  for (std::string line; std::getline(in, line);) ++written;
  EXPECT_GT(written, 0u);
  EXPECT_LT(written, lines);
}

TEST(AccessLogSampling, KeepsOneInNAndEvery5xx) {
  access_log_sink sink("/dev/null");
  stet::access_log_options o;
  o.sample_one_in = 3;
  access_log log(&sink, o);
  EXPECT_TRUE(log.enabled());
  std::vector<bool> kept;
  for (int i = 0; i < 6; ++i) kept.push_back(log.wants(200));
  EXPECT_EQ(kept, (std::vector<bool>{false, false, true, false, false, true}));
  for (int i = 0; i < 5; ++i) EXPECT_TRUE(log.wants(500 + i));  // never sampled away
  EXPECT_TRUE(log.wants(599));
  // 4xx are sampled like 2xx, and the 5xx above did not move the count.
  kept.clear();
  for (int i = 0; i < 3; ++i) kept.push_back(log.wants(404));
  EXPECT_EQ(kept, (std::vector<bool>{false, false, true}));
}

TEST(AccessLogSampling, OneInOneOrZeroKeepsEverything) {
  access_log_sink sink("/dev/null");
  for (const unsigned n : {0u, 1u}) {
    stet::access_log_options o;
    o.sample_one_in = n;
    access_log log(&sink, o);
    for (int i = 0; i < 10; ++i) EXPECT_TRUE(log.wants(200)) << n;
  }
}

TEST(AccessLogSampling, OffWithoutASink) {
  access_log log(nullptr, {});
  EXPECT_FALSE(log.enabled());
  EXPECT_FALSE(log.wants(200));
  EXPECT_FALSE(log.wants(500));
  log.append(sample_record());
  EXPECT_FALSE(log.pending());
  log.flush();
}

}  // namespace
