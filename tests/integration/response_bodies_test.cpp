// Bodies from memory (small and large), shared buffers and files (sendfile),
// alone and mixed in one pipelined batch.
#include <stet/stet.hpp>

#include "support/http_client.hpp"
#include "support/test_server.hpp"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

namespace {

using stet::test::raw_client;
using stet::test::running_server;

std::string pattern(std::size_t size) {
  std::string s(size, '\0');
  for (std::size_t i = 0; i < size; ++i) s[i] = static_cast<char>('a' + (i * 7 + i / 251) % 26);
  return s;
}

class ResponseBodies : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = std::filesystem::temp_directory_path() / ("stet-bodies-" + std::to_string(::getpid()));
    std::ofstream(path_, std::ios::binary) << file_bytes_;
    stet::router r;
    r.get("/small", [](stet::request&) { return stet::response::text("small"); });
    r.get("/large", [this](stet::request&) { return stet::response::text(large_); });
    r.get("/shared", [this](stet::request&) {
      stet::response res(stet::status::ok);
      res.set_shared_body(shared_);
      return res;
    });
    r.get("/file", [this](stet::request&) { return file_response(0, file_bytes_.size()); });
    r.get("/file-range", [this](stet::request&) { return file_response(1000, 5000); });
    server_ = std::make_unique<running_server>(std::move(r));
  }
  void TearDown() override {
    server_.reset();
    std::filesystem::remove(path_);
  }

  stet::response file_response(std::uint64_t offset, std::uint64_t length) const {
    const int fd = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
    stet::response res(stet::status::ok);
    res.set_file(std::make_shared<stet::file_source>(fd), offset, length);
    return res;
  }

  std::filesystem::path path_;
  const std::string file_bytes_ = pattern(3 * 1024 * 1024 + 17);
  const std::string large_ = pattern(200 * 1024);
  const std::shared_ptr<const std::string> shared_ = std::make_shared<const std::string>(pattern(50 * 1024));
  std::unique_ptr<running_server> server_;
};

TEST_F(ResponseBodies, EachKindArrivesWhole) {
  raw_client client(server_->port());
  const auto small = client.request("GET", "/small");
  ASSERT_TRUE(small);
  EXPECT_EQ(small->body, "small");
  const auto large = client.request("GET", "/large");
  ASSERT_TRUE(large);
  EXPECT_EQ(large->body, large_);
  const auto shared = client.request("GET", "/shared");
  ASSERT_TRUE(shared);
  EXPECT_EQ(shared->body, *shared_);
  const auto file = client.request("GET", "/file");
  ASSERT_TRUE(file);
  EXPECT_EQ(file->header("content-length"), std::to_string(file_bytes_.size()));
  EXPECT_EQ(file->body, file_bytes_);
  const auto range = client.request("GET", "/file-range");
  ASSERT_TRUE(range);
  EXPECT_EQ(range->body, file_bytes_.substr(1000, 5000));
}

TEST_F(ResponseBodies, PipelinedMixKeepsOrder) {
  raw_client client(server_->port());
  const char* targets[] = {"/small", "/file", "/large", "/file-range", "/shared", "/small", "/file"};
  std::string batch;
  for (const char* t : targets) batch += std::string("GET ") + t + " HTTP/1.1\r\nHost: x\r\n\r\n";
  ASSERT_TRUE(client.send(batch));
  for (const char* t : targets) {
    const auto r = client.read_response();
    ASSERT_TRUE(r) << t;
    const std::string_view target(t);
    const std::string expected = target == "/small"        ? std::string("small")
                                 : target == "/file"       ? file_bytes_
                                 : target == "/large"      ? large_
                                 : target == "/file-range" ? file_bytes_.substr(1000, 5000)
                                                           : *shared_;
    EXPECT_EQ(r->body.size(), expected.size()) << t;
    EXPECT_TRUE(r->body == expected) << t;
  }
}

TEST_F(ResponseBodies, HeadSendsLengthButNoBody) {
  raw_client client(server_->port());
  const auto file = client.request("HEAD", "/file");
  ASSERT_TRUE(file);
  EXPECT_EQ(file->header("content-length"), std::to_string(file_bytes_.size()));
  EXPECT_TRUE(file->body.empty());
  const auto large = client.request("HEAD", "/large");
  ASSERT_TRUE(large);
  EXPECT_EQ(large->header("content-length"), std::to_string(large_.size()));
  // The connection is still in step: the next answer is the next request's.
  const auto small = client.request("GET", "/small");
  ASSERT_TRUE(small);
  EXPECT_EQ(small->body, "small");
}

}  // namespace
