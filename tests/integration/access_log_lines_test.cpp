// Access log lines: content, escaping of client-controlled text, sampling
// decided before formatting (5xx always kept), and nothing written when off.
#include <stet/stet.hpp>

#include "support/http_client.hpp"
#include "support/test_server.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace {

using stet::test::raw_client;
using stet::test::running_server;

stet::router log_routes() {
  stet::router r;
  r.get("/ok", [](stet::request&) { return stet::response::text("fine"); });
  r.get("/boom", [](stet::request&) -> stet::response { throw std::runtime_error("boom"); });
  r.on_error([](std::string_view) {});
  return r;
}

class AccessLog : public ::testing::Test {
 protected:
  std::filesystem::path path_ =
      std::filesystem::temp_directory_path() / ("stet-access-" + std::to_string(::getpid()) + ".log");
  void TearDown() override { std::filesystem::remove(path_); }

  std::vector<std::string> lines() const {
    std::ifstream in(path_);
    std::vector<std::string> out;
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
  }
  stet::server_options options(stet::access_log_format format, unsigned one_in = 1) const {
    stet::server_options o = stet::test::test_options();
    o.access_log.enabled = true;
    o.access_log.path = path_.string();
    o.access_log.format = format;
    o.access_log.sample_one_in = one_in;
    return o;
  }
};

TEST_F(AccessLog, CombinedLineDescribesTheExchange) {
  {
    running_server server(log_routes(), options(stet::access_log_format::combined));
    raw_client client(server.port());
    ASSERT_TRUE(client.request("GET", "/ok?x=1", "User-Agent: tester/1\r\nReferer: http://r/\r\n"));
  }  // stopping the server flushes the log
  const auto all = lines();
  ASSERT_EQ(all.size(), 1u);
  EXPECT_NE(all[0].find("127.0.0.1 - - ["), std::string::npos) << all[0];
  EXPECT_NE(all[0].find("] \"GET /ok?x=1 HTTP/1.1\" 200 4 \"http://r/\" \"tester/1\""), std::string::npos) << all[0];
}

TEST_F(AccessLog, ClientTextCannotForgeLines) {
  {
    running_server server(log_routes(), options(stet::access_log_format::common));
    raw_client client(server.port());
    ASSERT_TRUE(client.request("GET", "/ok?a=\"b\"\\"));
  }
  const auto all = lines();
  ASSERT_EQ(all.size(), 1u);
  EXPECT_NE(all[0].find(R"("GET /ok?a=\"b\"\\ HTTP/1.1")"), std::string::npos) << all[0];
}

TEST_F(AccessLog, JsonLinesAndBadRequestsAreLogged) {
  {
    running_server server(log_routes(), options(stet::access_log_format::json));
    raw_client client(server.port());
    ASSERT_TRUE(client.request("GET", "/ok"));
    raw_client bad(server.port());
    bad.send("GET /ok HTTP/1.1\r\n\r\n");  // no Host: 400
    ASSERT_TRUE(bad.read_response());
  }
  const auto all = lines();
  ASSERT_EQ(all.size(), 2u);
  std::string joined = all[0] + all[1];
  EXPECT_NE(joined.find(R"("method":"GET","target":"/ok","version":"HTTP/1.1","status":200,"bytes":4)"),
            std::string::npos)
      << joined;
  EXPECT_NE(joined.find(R"("method":"-","target":"-")"), std::string::npos) << joined;
  EXPECT_NE(joined.find(R"("status":400)"), std::string::npos) << joined;
}

TEST_F(AccessLog, SamplingKeepsOneInNAndEveryServerError) {
  {
    running_server server(log_routes(), options(stet::access_log_format::common, 10));
    raw_client client(server.port());
    for (int i = 0; i < 100; ++i) ASSERT_TRUE(client.request("GET", "/ok"));
    for (int i = 0; i < 3; ++i) ASSERT_TRUE(client.request("GET", "/boom"));
  }
  const auto all = lines();
  std::size_t errors = 0;
  for (const std::string& line : all) errors += line.find("\" 500 ") != std::string::npos ? 1 : 0;
  EXPECT_EQ(errors, 3u);
  EXPECT_EQ(all.size() - errors, 10u);
}

TEST_F(AccessLog, OffWritesNothing) {
  stet::server_options o = stet::test::test_options();
  o.access_log.path = path_.string();  // path given, but not enabled
  {
    running_server server(log_routes(), o);
    raw_client client(server.port());
    ASSERT_TRUE(client.request("GET", "/ok"));
  }
  EXPECT_FALSE(std::filesystem::exists(path_));
}

TEST_F(AccessLog, UnwritablePathFailsStart) {
  stet::server_options o = options(stet::access_log_format::common);
  o.access_log.path = "/nonexistent-dir/x.log";
  stet::server server(log_routes(), o);
  EXPECT_TRUE(server.start());
}

}  // namespace
