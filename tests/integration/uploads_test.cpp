// stet-server's upload routes over the wire: POST /upload (multipart, file
// parts to the directory, every part measured and hashed) and PUT
// /upload/{name} (a raw body; 201 new, 200 replaced).
#include <stet/stet.hpp>

#include "support/http_client.hpp"
#include "support/test_server.hpp"
#include "uploads.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <simdjson.h>

#include <algorithm>
#include <barrier>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

using namespace std::chrono_literals;
using stet::test::raw_client;

std::string sha256_of_abc() { return "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"; }

// What the upload routes logged (their config's `log`).
struct log_lines {
  std::mutex mutex;
  std::vector<std::string> lines;
  std::string all() {
    std::lock_guard lock(mutex);
    std::string out;
    for (const std::string& l : lines) out += l + "\n";
    return out;
  }
};

class Uploads : public ::testing::Test {
 protected:
  explicit Uploads(bool digest = true)
      : dir_(stet_server::prepare_upload_dir("").path), log_(std::make_shared<log_lines>()), server_(routes(digest)) {}
  ~Uploads() override { stet_server::remove_upload_dir(dir_); }

  stet::router routes(bool digest) {
    stet::router r;
    stet_server::add_upload_routes(r, {dir_, 1 << 20, digest}, [log = log_](const std::string& line) {
      std::lock_guard lock(log->mutex);
      log->lines.push_back(line);
    });
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
  // Waits (bounded) until the directory holds `n` entries (at least `n` with
  // `or_more`), hidden ones included.
  bool files_become(std::size_t n, bool or_more = false, std::chrono::milliseconds limit = 5s) const {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (or_more ? files() < n : files() != n) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      std::this_thread::sleep_for(10ms);
    }
    return true;
  }
  // The stored filenames of a POST /upload answer, in order.
  static std::vector<std::string> stored_names(const std::string& answer) {
    simdjson::dom::parser parser;
    simdjson::dom::element doc;
    std::vector<std::string> names;
    if (parser.parse(answer).get(doc) != simdjson::SUCCESS) return names;
    for (simdjson::dom::element part : doc["parts"].get_array()) {
      std::string_view name;
      if (part["filename"].get(name) == simdjson::SUCCESS) names.emplace_back(name);
    }
    return names;
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
  std::shared_ptr<log_lines> log_;
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
  // The same name twice: the second upload never replaces the first, it
  // gets a random suffix before the extension ("a-<8 hex digits>.txt").
  const std::string second(std::string_view(part(2)["filename"]));
  ASSERT_EQ(second.size(), std::string_view("a-01234567.txt").size()) << second;
  EXPECT_EQ(second.substr(0, 2), "a-");
  EXPECT_EQ(second.find_first_not_of("0123456789abcdef", 2), second.size() - 4) << second;
  EXPECT_EQ(second.substr(second.size() - 4), ".txt");
  EXPECT_EQ(file("a.txt"), "abc");
  EXPECT_EQ(file(second), "abc");
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

// A 255-byte name (the most a Linux name holds) uploaded twice: the second
// gets a unique suffix, which must survive the cut to 255 bytes (the stem is
// shortened, the suffix and extension kept, no UTF-8 character split).
TEST_F(Uploads, ALongestNameUploadedTwiceGetsTwoNamesWithinTheLimit) {
  std::string stem = "a";
  while (stem.size() + 2 <= 251) stem += "\xc3\xa9";  // é: a cut at an odd length would split one
  const std::string utf8_name = stem + ".jpg";
  const std::string ascii_name = std::string(251, 'x') + ".bin";
  ASSERT_EQ(utf8_name.size(), 255u);
  for (const std::string& name : {utf8_name, ascii_name}) {
    std::set<std::string> seen;
    for (int i = 0; i < 2; ++i) {
      raw_client c(server_.port());
      const std::string body = multipart("b", {{"f", name, "copy " + std::to_string(i)}});
      const auto r = c.request("POST", "/upload", "Content-Type: multipart/form-data; boundary=b\r\n", body);
      ASSERT_TRUE(r);
      ASSERT_EQ(r->status, 200) << r->body;
      // simdjson refuses invalid UTF-8: a split character fails here.
      const std::vector<std::string> stored = stored_names(r->body);
      ASSERT_EQ(stored.size(), 1u) << r->body;
      EXPECT_LE(stored[0].size(), 255u);
      EXPECT_EQ(stored[0].substr(stored[0].size() - 4), name.substr(name.size() - 4));
      EXPECT_EQ(file(stored[0]), "copy " + std::to_string(i));
      seen.insert(stored[0]);
    }
    EXPECT_EQ(seen.size(), 2u);
    EXPECT_TRUE(seen.count(name)) << "the first upload keeps the name as sent";
  }
  EXPECT_EQ(files(), 4u);
}

// No cap on how many uploads share a name, and the 1,001st costs no more
// attempts than the second.
TEST_F(Uploads, OneNameUploadedMoreThanAThousandTimesAlwaysSucceeds) {
  std::vector<std::array<std::string, 3>> parts(1000, {"f", "IMG_0001.jpg", "x"});
  raw_client c(server_.port());
  const auto first =
      c.request("POST", "/upload", "Content-Type: multipart/form-data; boundary=b\r\n", multipart("b", parts));
  ASSERT_TRUE(first);
  ASSERT_EQ(first->status, 200) << first->body.substr(0, 300);
  parts.resize(5);
  const std::uint64_t before = stet_server::upload_name_attempts();
  const auto more =
      c.request("POST", "/upload", "Content-Type: multipart/form-data; boundary=b\r\n", multipart("b", parts));
  ASSERT_TRUE(more);
  ASSERT_EQ(more->status, 200) << more->body.substr(0, 300);
  EXPECT_LE(stet_server::upload_name_attempts() - before, 3u * parts.size());
  EXPECT_EQ(files(), 1005u);
  EXPECT_EQ(file("IMG_0001.jpg"), "x");
}

// Many parts of one name in one request: the attempts to name them grow with
// the parts, not with their square (each used to try -1, -2, ... in turn).
TEST_F(Uploads, NamingManyPartsOfOneNameCostsAFewAttemptsEach) {
  constexpr std::size_t count = 300;
  const std::vector<std::array<std::string, 3>> parts(count, {"f", "same.txt", "x"});
  const std::uint64_t before = stet_server::upload_name_attempts();
  raw_client c(server_.port());
  const auto r =
      c.request("POST", "/upload", "Content-Type: multipart/form-data; boundary=b\r\n", multipart("b", parts));
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body.substr(0, 300);
  const std::uint64_t attempts = stet_server::upload_name_attempts() - before;
  EXPECT_GE(attempts, count);
  EXPECT_LE(attempts, 3 * count);
  EXPECT_EQ(files(), count);
}

// A failure is logged with its path; the client is told what failed, not where.
TEST_F(Uploads, AnErrorAnswerNamesNoServerPath) {
  std::filesystem::remove_all(dir_);
  raw_client c(server_.port());
  const auto put = c.request("PUT", "/upload/data.bin", {}, "abc");
  ASSERT_TRUE(put);
  EXPECT_EQ(put->status, 500);
  const auto post = c.request("POST", "/upload", "Content-Type: multipart/form-data; boundary=b\r\n",
                              multipart("b", {{"f", "a.txt", "abc"}}));
  ASSERT_TRUE(post);
  EXPECT_EQ(post->status, 500);
  for (const std::string& body : {put->body, post->body}) {
    EXPECT_EQ(body.find(dir_), std::string::npos) << body;
    EXPECT_EQ(body.find('/'), std::string::npos) << body;
    EXPECT_NE(body.find("\"error\""), std::string::npos) << body;
  }
  EXPECT_NE(log_->all().find(dir_), std::string::npos) << log_->all();
}

// A request refused part-way stores none of its parts: more parts than
// multipart_options::max_parts (the parser's 413) ...
TEST_F(Uploads, AMultipartRefusedForTooManyPartsLeavesNoFile) {
  std::vector<std::array<std::string, 3>> parts;
  for (int i = 0; i < 1001; ++i) parts.push_back({"f", "f" + std::to_string(i) + ".bin", "x"});
  raw_client c(server_.port());
  const auto r =
      c.request("POST", "/upload", "Content-Type: multipart/form-data; boundary=b\r\n", multipart("b", parts));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 413) << r->body;
  EXPECT_TRUE(files_become(0)) << files() << " files left";
}

// ... a chunked body that outgrows the route's limit (the connection's 413,
// after the first part was complete) ...
TEST_F(Uploads, AMultipartOverTheRouteLimitLeavesNoFile) {
  const std::string first =
      "--b\r\nContent-Disposition: form-data; name=\"f\"; filename=\"one.bin\"\r\n\r\nabc\r\n"
      "--b\r\nContent-Disposition: form-data; name=\"f\"; filename=\"two.bin\"\r\n\r\n";
  raw_client c(server_.port());
  std::string bytes =
      "POST /upload HTTP/1.1\r\nHost: t\r\nContent-Type: multipart/form-data; boundary=b\r\n"
      "Transfer-Encoding: chunked\r\n\r\n";
  bytes += fmt::format("{:x}\r\n{}\r\n", first.size(), first);
  ASSERT_TRUE(c.send(bytes));
  const std::string chunk(64 * 1024, 'z');
  bool sent = true;
  for (int i = 0; i < 20 && sent; ++i) sent = c.send(fmt::format("{:x}\r\n{}\r\n", chunk.size(), chunk));
  const std::string all = c.read_until_close(5s);
  EXPECT_NE(all.find("HTTP/1.1 413"), std::string::npos) << all.substr(0, 200);
  EXPECT_TRUE(files_become(0)) << files() << " files left";
}

// ... a body that ends before the final boundary (400) ...
TEST_F(Uploads, ATruncatedMultipartLeavesNoFile) {
  const std::string cut =
      "--b\r\nContent-Disposition: form-data; name=\"f\"; filename=\"one.bin\"\r\n\r\nabc\r\n"
      "--b\r\nContent-Disposition: form-data; name=\"f\"; filename=\"two.bin\"\r\n\r\npartial";
  raw_client c(server_.port());
  const auto r = c.request("POST", "/upload", "Content-Type: multipart/form-data; boundary=b\r\n", cut);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400) << r->body;
  EXPECT_TRUE(files_become(0)) << files() << " files left";
}

// ... and a client gone mid-body, after its first part reached the disk.
TEST_F(Uploads, AClientGoneMidBodyLeavesNoFile) {
  const std::string start =
      "--b\r\nContent-Disposition: form-data; name=\"f\"; filename=\"one.bin\"\r\n\r\nabc\r\n"
      "--b\r\nContent-Disposition: form-data; name=\"f\"; filename=\"two.bin\"\r\n\r\nmore";
  {
    raw_client c(server_.port());
    ASSERT_TRUE(
        c.send("POST /upload HTTP/1.1\r\nHost: t\r\nContent-Type: multipart/form-data; boundary=b\r\n"
               "Content-Length: 100000\r\n\r\n" +
               start));
    // The first part is complete: it is on disk (under a temporary name) once read.
    ASSERT_TRUE(files_become(1, true)) << files();
  }
  EXPECT_TRUE(files_become(0)) << files() << " files left";
}

// PUT of a new name by many clients at once: the name is created once (201),
// every other PUT replaced a file (200), whatever the interleaving. Each head
// is answered with 100 Continue (the handler has run) before any body is sent.
TEST_F(Uploads, ConcurrentPutsOfANewNameCreateItExactlyOnce) {
  constexpr int clients = 8;
  constexpr int rounds = 20;
  for (int round = 0; round < rounds; ++round) {
    const std::string target = "/upload/race-" + std::to_string(round) + ".bin";
    std::barrier heads_answered(clients);
    std::vector<int> statuses(clients, 0);
    std::vector<std::thread> threads;
    for (int i = 0; i < clients; ++i) {
      threads.emplace_back([&, i] {
        raw_client c(server_.port());
        const bool sent =
            c.send("PUT " + target + " HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\nExpect: 100-continue\r\n\r\n");
        std::string got;
        while (sent && got.find("\r\n\r\n") == std::string::npos) {
          const std::string more = c.read_once(5s);
          if (more.empty()) break;
          got += more;
        }
        heads_answered.arrive_and_wait();
        if (got.find(" 100 ") == std::string::npos) return;
        if (!c.send(fmt::format("{:02}", i))) return;
        if (const auto r = c.read_response()) statuses[static_cast<std::size_t>(i)] = r->status;
      });
    }
    for (std::thread& t : threads) t.join();
    EXPECT_EQ(std::count(statuses.begin(), statuses.end(), 201), 1) << "round " << round;
    EXPECT_EQ(std::count(statuses.begin(), statuses.end(), 200), clients - 1) << "round " << round;
  }
  EXPECT_EQ(files(), static_cast<std::size_t>(rounds));
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
