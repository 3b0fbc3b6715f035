// The static-file cases over TLS: a cached file from memory, a file larger
// than the cache (read and encrypted a record at a time instead of sendfile),
// ranges and conditional requests, on one keep-alive TLS connection.

#include <stet/stet.hpp>

#include "support/static_tree.hpp"
#include "support/tls_client.hpp"
#include "support/tls_server.hpp"

#include <gtest/gtest.h>

#include <string>

namespace {

using stet::test::pattern_bytes;
using stet::test::running_server;
using stet::test::temp_tree;
using stet::test::tls_client;

class TlsStatic : public ::testing::Test {
 protected:
  void SetUp() override {
    tree_.write("site/app.css", css_);
    tree_.write("site/big.bin", big_);
    stet::static_options o;
    o.settle_time = std::chrono::milliseconds(0);
    o.cache_budget = 2 * 1024 * 1024;  // big.bin is larger than the whole cache: it goes out from the file
    files_ = std::make_shared<stet::static_files>(tree_.path("site").string(), o);
    stet::router r;
    stet::mount(r, "/static", files_);
    server_ =
        std::make_unique<running_server>(std::move(r), stet::test::tls_server_options(stet::test::tls_settings(site_)));
  }
  void TearDown() override { server_.reset(); }

  stet::test::tls_fixture certs_;
  stet::test::cert_files site_ = certs_.issue("site");
  temp_tree tree_;
  const std::string css_ = pattern_bytes(80 * 1024, 5);
  const std::string big_ = pattern_bytes(3 * 1024 * 1024 + 17, 11);
  std::shared_ptr<stet::static_files> files_;
  std::unique_ptr<running_server> server_;
};

TEST_F(TlsStatic, CachedAndLargeFilesRangesAndConditionalsOnOneConnection) {
  tls_client c(server_->get().port(1));
  ASSERT_TRUE(c.handshake()) << c.error();
  auto r = c.request("GET", "/static/app.css");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_TRUE(r->body == css_);
  ASSERT_TRUE(r->header("etag"));
  const std::string etag = *r->header("etag");

  r = c.request("GET", "/static/app.css", "If-None-Match: " + etag + "\r\n");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 304);
  EXPECT_TRUE(r->body.empty());

  r = c.request("GET", "/static/big.bin");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body.size(), big_.size());
  EXPECT_TRUE(r->body == big_);

  r = c.request("GET", "/static/big.bin", "Range: bytes=2000000-2000099\r\n");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 206);
  EXPECT_EQ(r->body, big_.substr(2000000, 100));
  r = c.request("GET", "/static/big.bin", "Range: bytes=-10\r\n");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->body, big_.substr(big_.size() - 10));
  r = c.request("GET", "/static/big.bin", "Range: bytes=99999999-\r\n");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 416);
  r = c.request("HEAD", "/static/big.bin");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->header("content-length"), std::to_string(big_.size()));
  // Still the same connection, still answering.
  r = c.request("GET", "/static/app.css");
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->body == css_);
}

}  // namespace
