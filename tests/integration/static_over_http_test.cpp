// stet::static_files behind a real server on 127.0.0.1: bytes over sockets,
// sendfile for the large file, conditional and range answers, traversal
// attempts sent raw, all through stet::mount under "/static".
#include <stet/stet.hpp>

#include "static/content_hash.hpp"

#include "support/http_client.hpp"
#include "support/static_tree.hpp"
#include "support/test_server.hpp"

#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <sys/socket.h>

#include <sys/inotify.h>
#include <unistd.h>

#include <latch>
#include <thread>

namespace {

using stet::test::pattern_bytes;
using stet::test::raw_client;
using stet::test::running_server;
using stet::test::temp_tree;

constexpr std::string_view prefix = "/static/";

std::string sha256_hex(std::string_view bytes) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_Digest(bytes.data(), bytes.size(), digest, &length, EVP_sha256(), nullptr);
  std::string hex;
  for (unsigned i = 0; i < length; ++i) {
    constexpr std::string_view digits = "0123456789abcdef";
    hex += digits[digest[i] >> 4];
    hex += digits[digest[i] & 0xf];
  }
  return hex;
}

/// Mounts the files under "/static" (the raw targets are what the test will send).
void mount(stet::router& r, const std::shared_ptr<stet::static_files>& files, const std::vector<std::string>&) {
  stet::mount(r, "/static", files);
}

class StaticOverHttp : public ::testing::Test {
 protected:
  void SetUp() override {
    tree_.write("site/index.html", "<!doctype html><title>home</title>");
    tree_.write("site/app.css", css_);
    tree_.write("site/p.css", "plain");
    tree_.write("site/p.css.br", "BROTLI-BYTES");
    tree_.write("site/big.bin", big_);
    tree_.write("site/docs/index.html", "docs");
    tree_.write("secret.txt", "SECRET-OUTSIDE-THE-ROOT");
    std::filesystem::create_symlink("../secret.txt", tree_.path("site/link_out"));
    stet::static_options o;
    o.settle_time = std::chrono::milliseconds(0);
    o.cache_budget = 2 * 1024 * 1024;  // big.bin (3 MiB) is larger than the whole cache
    files_ = std::make_shared<stet::static_files>(tree_.path("site").string(), o);
  }
  void serve(const std::vector<std::string>& raw) {
    stet::router r;
    mount(r, files_, raw);
    server_ = std::make_unique<running_server>(std::move(r));
  }
  void TearDown() override { server_.reset(); }

  temp_tree tree_;
  const std::string css_ = pattern_bytes(80 * 1024, 5);
  const std::string big_ = pattern_bytes(3 * 1024 * 1024 + 17, 11);
  std::shared_ptr<stet::static_files> files_;
  std::unique_ptr<running_server> server_;
};

TEST_F(StaticOverHttp, SmallFileThen304OnOneConnection) {
  serve({"app.css", "", "docs", "docs/"});
  raw_client client(server_->port());
  auto r = client.request("GET", "/static/app.css");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_TRUE(r->body == css_);
  EXPECT_EQ(r->header("content-length"), std::to_string(css_.size()));
  EXPECT_EQ(r->header("content-type"), "text/css; charset=utf-8");
  EXPECT_EQ(r->header("accept-ranges"), "bytes");
  ASSERT_TRUE(r->header("etag"));
  ASSERT_TRUE(r->header("last-modified"));
  const std::string etag = *r->header("etag");

  r = client.request("GET", "/static/app.css", "If-None-Match: " + etag + "\r\n");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 304);
  EXPECT_TRUE(r->body.empty());
  EXPECT_EQ(r->header("etag"), etag);
  EXPECT_FALSE(r->header("content-length"));

  r = client.request("GET", "/static/");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->body, "<!doctype html><title>home</title>");
  r = client.request("GET", "/static/docs");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 301);
  EXPECT_EQ(r->header("location"), "/static/docs/");
  r = client.request("GET", "/static/docs/");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->body, "docs");
}

TEST_F(StaticOverHttp, LargeFileStreamsWholeAndHeadSendsNoBody) {
  serve({"big.bin", "app.css"});
  raw_client client(server_->port());
  auto r = client.request("HEAD", "/static/big.bin");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->header("content-length"), std::to_string(big_.size()));
  EXPECT_TRUE(r->body.empty());

  r = client.request("GET", "/static/big.bin");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body.size(), big_.size());
  EXPECT_EQ(sha256_hex(r->body), sha256_hex(big_));
  EXPECT_EQ(files_->stats().reads, 0u);  // sent by sendfile, never read into memory

  r = client.request("GET", "/static/app.css");  // still in step after both
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->body == css_);
}

// sendfile(2) cannot pass MSG_NOSIGNAL: writing to a client that reset raises
// SIGPIPE, which, unless the server's threads block it, kills this process.
TEST_F(StaticOverHttp, ClientResetDuringSendfileBodyCostsOnlyItsConnection) {
  serve({"big.bin"});
  for (int i = 0; i < 8; ++i) {
    raw_client client(server_->port());
    ASSERT_TRUE(client.send("GET /static/big.bin HTTP/1.1\r\nHost: x\r\n\r\n"));
    EXPECT_FALSE(client.read_once().empty());  // the transfer is under way
    const linger reset_on_close{1, 0};
    ::setsockopt(client.fd(), SOL_SOCKET, SO_LINGER, &reset_on_close, sizeof reset_on_close);
  }
  raw_client after(server_->port());
  const auto r = after.request("GET", "/static/big.bin");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->body.size(), big_.size());
}

TEST_F(StaticOverHttp, RangesAndIfRange) {
  serve({"big.bin"});
  raw_client client(server_->port());
  auto r = client.request("GET", "/static/big.bin", "Range: bytes=2000000-2000099\r\n");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 206);
  EXPECT_EQ(r->header("content-range"), "bytes 2000000-2000099/" + std::to_string(big_.size()));
  EXPECT_EQ(r->body, big_.substr(2000000, 100));
  r = client.request("GET", "/static/big.bin", "Range: bytes=-10\r\n");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->body, big_.substr(big_.size() - 10));
  r = client.request("GET", "/static/big.bin", "Range: bytes=99999999-\r\n");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 416);
  EXPECT_EQ(r->header("content-range"), "bytes */" + std::to_string(big_.size()));
  EXPECT_TRUE(r->body.empty());
  r = client.request("GET", "/static/big.bin", "Range: bytes=0-9\r\nIf-Range: \"not-it\"\r\n");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body.size(), big_.size());
  EXPECT_EQ(files_->stats().partial, 2u);
}

TEST_F(StaticOverHttp, PrecompressedSiblingWithVary) {
  serve({"p.css"});
  raw_client client(server_->port());
  auto r = client.request("GET", "/static/p.css", "Accept-Encoding: gzip, br\r\n");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->body, "BROTLI-BYTES");
  EXPECT_EQ(r->header("content-encoding"), "br");
  EXPECT_EQ(r->header("vary"), "Accept-Encoding");
  EXPECT_EQ(r->header("content-type"), "text/css; charset=utf-8");
  r = client.request("GET", "/static/p.css");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->body, "plain");
  EXPECT_EQ(r->header("vary"), "Accept-Encoding");
}

// RFC 9110 5.3: repeated list fields are one list. Only the first
// Accept-Encoding line was read ("identity;q=0.5": identity), and only the
// first If-None-Match line (a tag that does not match: 200).
TEST_F(StaticOverHttp, SeveralLinesOfAListFieldAreOneList) {
  serve({"p.css", "app.css"});
  raw_client client(server_->port());
  auto r = client.request("GET", "/static/p.css", "Accept-Encoding: identity;q=0.5\r\nAccept-Encoding: br\r\n");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->body, "BROTLI-BYTES");
  EXPECT_EQ(r->header("content-encoding"), "br");
  r = client.request("GET", "/static/app.css");
  ASSERT_TRUE(r);
  const std::string etag = r->header("etag").value_or("");
  r = client.request("GET", "/static/app.css", "If-None-Match: \"other\"\r\nIf-None-Match: " + etag + "\r\n");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 304);
  r = client.request("GET", "/static/app.css", "If-Match: \"other\"\r\nIf-Match: " + etag + "\r\n");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
}

TEST_F(StaticOverHttp, TraversalTargetsAre4xxAndOpenNothingOutside) {
  const std::vector<std::string> attempts = {
      "../secret.txt",
      "..%2fsecret.txt",
      "%2e%2e/secret.txt",
      "%2E%2E%2Fsecret.txt",
      ".%2e/secret.txt",
      "%2e./secret.txt",
      "..%5csecret.txt",
      "%2e%2e%5csecret.txt",
      "sub/../../secret.txt",
      "sub/%2e%2e/%2e%2e/secret.txt",
      "sub%2f..%2f..%2fsecret.txt",
      "/../secret.txt",
      "..%00/secret.txt",
      "..;/secret.txt",
      "%c0%ae%c0%ae/secret.txt",
      "%252e%252e/secret.txt",
      "%u002e%u002e/secret.txt",
      "....//secret.txt",
      "link_out",
      ".%2e",
      "%2e%2e%2f%2e%2e%2fsecret.txt",
      "..\\secret.txt",
  };
  serve(attempts);
  const int watch = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  ASSERT_GE(watch, 0);
  ASSERT_GE(::inotify_add_watch(watch, tree_.path("secret.txt").c_str(), IN_OPEN | IN_ACCESS), 0);
  for (const std::string& attempt : attempts) {
    raw_client client(server_->port());
    const auto r = client.request("GET", std::string(prefix) + attempt);
    ASSERT_TRUE(r) << attempt;
    EXPECT_GE(r->status, 400) << attempt;
    EXPECT_LT(r->status, 500) << attempt;
    EXPECT_EQ(r->body.find("SECRET"), std::string::npos) << attempt;
  }
  // Most attempts got past the server's own checks and were refused by respond().
  EXPECT_GE(files_->stats().refused, 12u);
  char events[4096];
  EXPECT_LT(::read(watch, events, sizeof events), 0) << "something opened the secret file";
  ::close(watch);
}

TEST_F(StaticOverHttp, ConcurrentClientsReadAnUncachedFileOnce) {
  const std::string once = pattern_bytes(768 * 1024, 2);
  tree_.write("site/once.bin", once);
  serve({"once.bin"});
  constexpr int clients = 8;
  std::latch start(clients);
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < clients; ++i) {
    threads.emplace_back([&] {
      raw_client client(server_->port());
      start.arrive_and_wait();
      const auto r = client.request("GET", "/static/once.bin");
      if (!r || r->body != once) ++wrong;
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(files_->stats().reads, 1u);
}

TEST_F(StaticOverHttp, HashedUrlIsImmutable) {
  const std::string url = files_->static_url("app.css");
  ASSERT_NE(url.find("?_hash="), std::string::npos);
  serve({"app.css"});
  raw_client client(server_->port());
  auto r = client.request("GET", url);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->header("cache-control"), "public, max-age=31536000, immutable");
  r = client.request("GET", "/static/app.css?_hash=ffffffffffffffff");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->header("cache-control"), "public, max-age=60");
  EXPECT_TRUE(r->body == css_);
}

}  // namespace
