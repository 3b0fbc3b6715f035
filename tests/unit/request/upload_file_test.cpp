#include <stet/upload_file.hpp>

#include <gtest/gtest.h>

#include <sys/resource.h>
#include <sys/stat.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>

namespace {

namespace fs = std::filesystem;

class UploadFile : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "stet-upload-test-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::set<std::string> entries() const {
    std::set<std::string> out;
    for (const fs::directory_entry& e : fs::directory_iterator(dir_)) out.insert(e.path().filename().string());
    return out;
  }
  std::string read(const std::string& name) const {
    std::ifstream in(dir_ / name, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  }

  fs::path dir_;
};

std::string sha256sum(const fs::path& file) {
  const std::string command = "sha256sum '" + file.string() + "'";
  FILE* p = ::popen(command.c_str(), "r");
  if (p == nullptr) return {};
  char out[65] = {};
  const std::size_t n = std::fread(out, 1, 64, p);
  ::pclose(p);
  return std::string(out, n);
}

std::string binary_bytes(std::size_t n) {
  std::string s(n, '\0');
  for (std::size_t i = 0; i < n; ++i) s[i] = static_cast<char>((i * 131 + i / 7) & 0xff);
  return s;
}

TEST_F(UploadFile, CommitLinksTheFileWithItsSizeAndDigest) {
  stet::upload_file f(dir_.string());
  ASSERT_FALSE(f.error()) << f.error().message();
  const std::string data = binary_bytes(300000);
  for (std::size_t i = 0; i < data.size(); i += 4096) ASSERT_FALSE(f.write(std::string_view(data).substr(i, 4096)));
  EXPECT_EQ(f.size(), data.size());
  // Nameless while written: no entry at all with O_TMPFILE, else only the hidden temporary.
  for (const std::string& e : entries()) EXPECT_TRUE(!f.anonymous() && e.starts_with(".stet-upload-")) << e;
  const stet::upload_commit_result r = f.commit("photo.bin");
  ASSERT_TRUE(r) << r.error.message();
  EXPECT_FALSE(f.is_open());
  EXPECT_EQ(r.info.path, (dir_ / "photo.bin").string());
  EXPECT_EQ(r.info.size, data.size());
  EXPECT_EQ(read("photo.bin"), data);
  EXPECT_EQ(entries(), std::set<std::string>{"photo.bin"});
  EXPECT_EQ(r.info.sha256_hex(), sha256sum(dir_ / "photo.bin"));
}

TEST_F(UploadFile, KnownDigests) {
  stet::upload_file empty(dir_.string());
  EXPECT_EQ(empty.commit("empty").info.sha256_hex(),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  stet::upload_file abc(dir_.string());
  ASSERT_FALSE(abc.write("a"));
  ASSERT_FALSE(abc.write("bc"));
  EXPECT_EQ(abc.commit("abc").info.sha256_hex(), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST_F(UploadFile, WithoutDigestTheFileIsTheSameAndTheDigestEmpty) {
  stet::upload_file f(dir_.string(), {.digest = false});
  ASSERT_FALSE(f.error()) << f.error().message();
  const std::string data = binary_bytes(100000);
  ASSERT_FALSE(f.write(data));
  const stet::upload_commit_result r = f.commit("plain.bin");
  ASSERT_TRUE(r) << r.error.message();
  EXPECT_EQ(r.info.size, data.size());
  EXPECT_EQ(read("plain.bin"), data);
  EXPECT_EQ(r.info.sha256_hex(), "");
  // Writes after the commit are refused with or without a digest.
  EXPECT_TRUE(f.write("more"));
}

TEST_F(UploadFile, AbortAndDestructionLeaveNothing) {
  {
    stet::upload_file f(dir_.string());
    ASSERT_FALSE(f.write("half an upload"));
    f.abort();
    EXPECT_FALSE(f.is_open());
    f.abort();  // idempotent
    EXPECT_TRUE(f.write("more").code);
  }
  {
    stet::upload_file f(dir_.string());
    ASSERT_FALSE(f.write("never committed"));
  }
  {
    stet::upload_file f(dir_.string(), {.allow_tmpfile = false});
    ASSERT_FALSE(f.write("named temporary"));
    EXPECT_FALSE(f.anonymous());
    EXPECT_EQ(entries().size(), 1u);
    EXPECT_TRUE(entries().begin()->starts_with(".stet-upload-"));
  }
  EXPECT_TRUE(entries().empty());
}

TEST_F(UploadFile, NamedTemporaryFallback) {
  stet::upload_file f(dir_.string(), {.allow_tmpfile = false});
  ASSERT_FALSE(f.error());
  ASSERT_FALSE(f.write("fallback bytes"));
  EXPECT_FALSE(entries().contains("out.txt"));
  const stet::upload_commit_result r = f.commit("out.txt");
  ASSERT_TRUE(r) << r.error.message();
  EXPECT_EQ(entries(), std::set<std::string>{"out.txt"});
  EXPECT_EQ(read("out.txt"), "fallback bytes");
  EXPECT_EQ(r.info.sha256_hex(), sha256sum(dir_ / "out.txt"));
}

TEST_F(UploadFile, AnExistingNameIsRefusedAndTheUploadKept) {
  for (bool tmpfile : {true, false}) {
    std::ofstream(dir_ / "taken") << "old";
    stet::upload_file f(dir_.string(), {.allow_tmpfile = tmpfile});
    ASSERT_FALSE(f.write("new"));
    const stet::upload_commit_result r = f.commit("taken");
    EXPECT_EQ(r.error.code, std::errc::file_exists);
    EXPECT_EQ(r.error.path, (dir_ / "taken").string());
    EXPECT_EQ(read("taken"), "old");
    EXPECT_TRUE(f.is_open());
    const stet::upload_commit_result again = f.commit("free");
    ASSERT_TRUE(again) << again.error.message();
    EXPECT_EQ(read("free"), "new");
    EXPECT_EQ(again.info.sha256_hex(), sha256sum(dir_ / "free"));
    fs::remove(dir_ / "free");
    fs::remove(dir_ / "taken");
  }
}

TEST_F(UploadFile, ReplaceOverwritesAtomically) {
  for (bool tmpfile : {true, false}) {
    std::ofstream(dir_ / "same") << "old";
    stet::upload_file f(dir_.string(), {.replace = true, .allow_tmpfile = tmpfile});
    ASSERT_FALSE(f.write("new"));
    ASSERT_TRUE(f.commit("same"));
    EXPECT_EQ(read("same"), "new");
    EXPECT_EQ(entries(), std::set<std::string>{"same"});
  }
}

TEST_F(UploadFile, ReplaceSaysWhetherAFileWasThere) {
  for (bool tmpfile : {true, false}) {
    for (int i = 0; i < 2; ++i) {
      stet::upload_file f(dir_.string(), {.replace = true, .allow_tmpfile = tmpfile});
      ASSERT_FALSE(f.write(i == 0 ? "first" : "second"));
      const stet::upload_commit_result r = f.commit("put.bin");
      ASSERT_TRUE(r) << r.error.message();
      EXPECT_EQ(r.info.replaced, i == 1) << "tmpfile " << tmpfile << ", commit " << i;
    }
    EXPECT_EQ(read("put.bin"), "second");
    EXPECT_EQ(entries(), std::set<std::string>{"put.bin"});
    fs::remove(dir_ / "put.bin");
  }
}

TEST_F(UploadFile, FsyncOption) {
  stet::upload_file f(dir_.string(), {.fsync = true});
  ASSERT_FALSE(f.write("durable"));
  const stet::upload_commit_result r = f.commit("durable.txt");
  ASSERT_TRUE(r) << r.error.message();
  EXPECT_EQ(read("durable.txt"), "durable");
}

TEST_F(UploadFile, ModeIsApplied) {
  stet::upload_file f(dir_.string(), {.mode = 0640});
  ASSERT_TRUE(f.commit("m"));
  struct stat st {};
  ASSERT_EQ(::stat((dir_ / "m").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777 & ~0640u, 0u);
}

TEST_F(UploadFile, FinalNameMustBeOneComponent) {
  stet::upload_file f(dir_.string());
  const std::string_view bads[] = {"", ".", "..", "a/b", "../x", std::string_view("a\0b", 3)};
  for (std::string_view bad : bads) {
    const stet::upload_commit_result r = f.commit(bad);
    EXPECT_EQ(r.error.code, std::errc::invalid_argument) << bad;
    EXPECT_EQ(r.error.operation, "commit");
  }
  EXPECT_EQ(f.commit(std::string(256, 'n')).error.code, std::errc::invalid_argument);
  EXPECT_TRUE(f.commit(std::string(255, 'n')));
}

TEST_F(UploadFile, AMissingDirectoryIsNamedInTheError) {
  stet::upload_file f((dir_ / "missing").string());
  EXPECT_EQ(f.error().code, std::errc::no_such_file_or_directory);
  EXPECT_EQ(f.error().operation, "open");
  EXPECT_EQ(f.error().message(), "open " + (dir_ / "missing").string() + ": No such file or directory");
  EXPECT_EQ(f.write("x").code, std::errc::no_such_file_or_directory);
  EXPECT_FALSE(f.commit("x"));
}

// A write the filesystem refuses (here the file-size limit, EFBIG; ENOSPC
// takes the same path) is reported with the path, and the upload stays
// uncommitted until aborted.
TEST_F(UploadFile, WriteErrorsAreValues) {
  for (bool tmpfile : {true, false}) {
    struct rlimit old {};
    ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &old), 0);
    const auto previous = std::signal(SIGXFSZ, SIG_IGN);
    struct rlimit small = old;
    small.rlim_cur = 1000;
    ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
    stet::upload_file f(dir_.string(), {.allow_tmpfile = tmpfile});
    const stet::upload_error first = f.write(std::string(800, 'a'));
    const stet::upload_error second = f.write(std::string(800, 'b'));
    ::setrlimit(RLIMIT_FSIZE, &old);
    std::signal(SIGXFSZ, previous);
    EXPECT_FALSE(first);
    ASSERT_EQ(second.code, std::errc::file_too_large);
    EXPECT_EQ(second.operation, "write");
    EXPECT_TRUE(second.path.starts_with(dir_.string()));
    EXPECT_EQ(f.write("c").code, std::errc::file_too_large);  // refused from then on
    EXPECT_FALSE(f.commit("partial"));
    f.abort();
    EXPECT_TRUE(entries().empty());
  }
}

TEST_F(UploadFile, MovingKeepsTheUpload) {
  stet::upload_file a(dir_.string());
  ASSERT_FALSE(a.write("moved"));
  stet::upload_file b = std::move(a);
  EXPECT_FALSE(a.is_open());
  stet::upload_file c;
  c = std::move(b);
  ASSERT_TRUE(c.commit("moved.txt"));
  EXPECT_EQ(read("moved.txt"), "moved");
}

}  // namespace
