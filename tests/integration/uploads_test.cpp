// stet-server's upload routes over the wire: POST /upload (multipart, file
// parts to the directory, every part measured and hashed) and PUT
// /upload/{name} (a raw body; 201 new, 200 replaced).
#include <stet/stet.hpp>

#include "support/http_client.hpp"
#include "support/test_server.hpp"
#include "uploads.hpp"

#include <gtest/gtest.h>
#include <simdjson.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace {

using namespace std::chrono_literals;
using stet::test::raw_client;

std::string sha256_of_abc() { return "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"; }

class Uploads : public ::testing::Test {
 protected:
  explicit Uploads(bool digest = true) : dir_(stet_server::prepare_upload_dir("").path), server_(routes(digest)) {}
  ~Uploads() override { stet_server::remove_upload_dir(dir_); }

  stet::router routes(bool digest) {
    stet::router r;
    stet_server::add_upload_routes(r, {dir_, 1 << 20, digest});
    return r;
  }

  std::string file(const std::string& name) const {
    std::ifstream in(std::filesystem::path(dir_) / name, std::ios::binary);
    std::stringstream all;
    all << in.rdbuf();
    return all.str();
  }
  std::size_t files() const {
    return static_cast<std::size_t>(std::distance(std::filesystem::directory_iterator(dir_), {}));
  }

  static std::string multipart(const std::string& boundary, const std::vector<std::array<std::string, 3>>& parts) {
    std::string body;
    for (const auto& [name, filename, content] : parts) {
      body += "--" + boundary + "\r\nContent-Disposition: form-data; name=\"" + name + "\"";
      if (!filename.empty()) body += "; filename=\"" + filename + "\"\r\nContent-Type: application/octet-stream";
      body += "\r\n\r\n" + content + "\r\n";
    }
    return body + "--" + boundary + "--\r\n";
  }

  std::string dir_;
  stet::test::running_server server_;
};

TEST_F(Uploads, MultipartPartsAreListedInOrderAndFilesStored) {
  raw_client c(server_.port());
  const std::string body = multipart("XyZ", {{"note", "", "hello"}, {"doc", "a.txt", "abc"}, {"doc", "a.txt", "abc"}});
  const auto r = c.request("POST", "/upload", "Content-Type: multipart/form-data; boundary=XyZ\r\n", body);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(r->body).get(doc), simdjson::SUCCESS) << r->body;
  simdjson::dom::array parts = doc["parts"].get_array();
  ASSERT_EQ(parts.size(), 3u);
  auto part = [&](std::size_t i) { return parts.at(i).get_object(); };
  EXPECT_EQ(std::string_view(part(0)["name"]), "note");
  EXPECT_TRUE(part(0)["filename"].is_null());
  EXPECT_EQ(std::uint64_t(part(0)["size"]), 5u);
  EXPECT_EQ(std::string_view(part(0)["sha256"]), "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824");
  EXPECT_EQ(std::string_view(part(1)["filename"]), "a.txt");
  EXPECT_EQ(std::string_view(part(1)["sha256"]), sha256_of_abc());
  // The same name twice: the second upload never replaces the first.
  EXPECT_EQ(std::string_view(part(2)["filename"]), "a-1.txt");
  EXPECT_EQ(file("a.txt"), "abc");
  EXPECT_EQ(file("a-1.txt"), "abc");
  EXPECT_EQ(files(), 2u);
}

TEST_F(Uploads, AFilenameWithAPathIsReducedToItsLastComponent) {
  raw_client c(server_.port());
  const std::string body = multipart("b", {{"f", "../../etc/passwd", "x"}});
  const auto r = c.request("POST", "/upload", "Content-Type: multipart/form-data; boundary=b\r\n", body);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200) << r->body;
  EXPECT_NE(r->body.find("\"filename\":\"passwd\""), std::string::npos) << r->body;
  EXPECT_EQ(file("passwd"), "x");
}

TEST_F(Uploads, AFileInputLeftEmptyStoresNothing) {
  raw_client c(server_.port());
  const std::string body =
      "--b\r\nContent-Disposition: form-data; name=\"f\"; filename=\"\"\r\n"
      "Content-Type: application/octet-stream\r\n\r\n\r\n--b--\r\n";
  const auto r = c.request("POST", "/upload", "Content-Type: multipart/form-data; boundary=b\r\n", body);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200) << r->body;
  EXPECT_NE(r->body.find("\"filename\":null"), std::string::npos) << r->body;
  EXPECT_EQ(files(), 0u);
}

TEST_F(Uploads, NotMultipartIs415AndABrokenBodyIs400WithNoFileLeft) {
  raw_client c(server_.port());
  const auto plain = c.request("POST", "/upload", "Content-Type: text/plain\r\n", "abc");
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->status, 415);
  const std::string cut = "--b\r\nContent-Disposition: form-data; name=\"f\"; filename=\"x.bin\"\r\n\r\npartial";
  raw_client d(server_.port());
  const auto broken = d.request("POST", "/upload", "Content-Type: multipart/form-data; boundary=b\r\n", cut);
  ASSERT_TRUE(broken);
  EXPECT_EQ(broken->status, 400) << broken->body;
  EXPECT_EQ(files(), 0u);
}

TEST_F(Uploads, PutCreatesThenReplaces) {
  raw_client c(server_.port());
  const auto created = c.request("PUT", "/upload/data.bin", {}, "abc");
  ASSERT_TRUE(created);
  EXPECT_EQ(created->status, 201);
  EXPECT_EQ(created->body, R"({"name":"data.bin","size":3,"sha256":")" + sha256_of_abc() + "\"}");
  const auto replaced = c.request("PUT", "/upload/data.bin", {}, "hello");
  ASSERT_TRUE(replaced);
  EXPECT_EQ(replaced->status, 200);
  EXPECT_EQ(file("data.bin"), "hello");
}

TEST_F(Uploads, PutRefusesNamesThatAreNotPlainFileNames) {
  raw_client c(server_.port());
  for (const char* name : {"/upload/.hidden", "/upload/..", "/upload/a%2Fb"}) {
    const auto r = c.request("PUT", name, {}, "abc");
    ASSERT_TRUE(r) << name;
    EXPECT_EQ(r->status, 400) << name << ": " << r->body;
  }
  EXPECT_EQ(files(), 0u);
}

TEST_F(Uploads, OverTheLimitIs413BeforeAnyContinue) {
  raw_client c(server_.port());
  ASSERT_TRUE(c.send("PUT /upload/big HTTP/1.1\r\nHost: t\r\nContent-Length: 2000000\r\nExpect: 100-continue\r\n\r\n"));
  const std::string all = c.read_until_close(3s);
  EXPECT_EQ(all.find("100 Continue"), std::string::npos) << all;
  EXPECT_NE(all.find("HTTP/1.1 413"), std::string::npos) << all;
  EXPECT_EQ(files(), 0u);
}

// --no-upload-digest: the same files, no SHA-256, "sha256": null.
class UploadsWithoutDigest : public Uploads {
 protected:
  UploadsWithoutDigest() : Uploads(false) {}
};

TEST_F(UploadsWithoutDigest, FilesAreStoredAndTheDigestIsNull) {
  raw_client c(server_.port());
  const auto put = c.request("PUT", "/upload/data.bin", {}, "abc");
  ASSERT_TRUE(put);
  EXPECT_EQ(put->status, 201);
  EXPECT_EQ(put->body, R"({"name":"data.bin","size":3,"sha256":null})");
  EXPECT_EQ(file("data.bin"), "abc");
  const std::string body = multipart("XyZ", {{"note", "", "hello"}, {"doc", "b.txt", "abcd"}});
  const auto post = c.request("POST", "/upload", "Content-Type: multipart/form-data; boundary=XyZ\r\n", body);
  ASSERT_TRUE(post);
  EXPECT_EQ(post->status, 200) << post->body;
  EXPECT_EQ(post->body, R"({"parts":[{"name":"note","filename":null,"size":5,"sha256":null},)"
                        R"({"name":"doc","filename":"b.txt","size":4,"sha256":null}]})");
  EXPECT_EQ(file("b.txt"), "abcd");
}

}  // namespace
