// stet::static_files in-process: real files in a scratch directory, requests
// built without a socket. Every invalidation rule of the cache, conditional and
// range answers, precompressed siblings, traversal attempts.
#include <stet/static_files.hpp>

#include "static/content_hash.hpp"
#include "static/file_watch.hpp"
#include "static/static_files_impl.hpp"

#include "http/date_cache.hpp"

#include "support/static_tree.hpp"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <latch>
#include <random>
#include <thread>

namespace {

using namespace std::chrono_literals;
using stet::test::fake_request;
using stet::test::pattern_bytes;
using stet::test::temp_tree;

std::string body_of(const stet::response& r) {
  if (r.file() == nullptr) return std::string(r.body());
  std::string out(r.content_length(), '\0');
  std::size_t done = 0;
  while (done < out.size()) {
    const ssize_t n =
        ::pread(r.file()->fd(), out.data() + done, out.size() - done, static_cast<off_t>(r.file_offset() + done));
    if (n <= 0) break;
    done += static_cast<std::size_t>(n);
  }
  out.resize(done);
  return out;
}

std::string hash_of(std::string_view bytes) {
  return std::string(stet::detail::to_view(*stet::detail::hash_bytes(bytes)));
}

unsigned code(const stet::response& r) { return stet::to_int(r.status()); }

class StaticFiles : public ::testing::Test {
 protected:
  static stet::static_options quick_options() {
    stet::static_options o;
    o.settle_time = 0ms;  // files written by the test are cached at once (see SettleTime)
    // These tests hold every hit to its stat (the mode where watches are
    // unavailable); the watched mode has its own tests (StaticFilesWatched).
    o.watch_files = false;
    return o;
  }
  void start(stet::static_options o = quick_options(), std::string root = {}) {
    files_.reset();
    files_ = std::make_unique<stet::static_files>(root.empty() ? tree_.path("site").string() : root, std::move(o));
  }
  void SetUp() override {
    tree_.write("site/index.html", "<h1>home</h1>");
    tree_.write("site/app.css", "body{color:red}");
    tree_.write("secret.txt", "SECRET-OUTSIDE-THE-ROOT");
    start();
  }

  /// GETs `relative` (which may carry "?query") as if mounted at /static/.
  stet::response fetch(std::string relative, std::vector<std::pair<std::string, std::string>> headers = {},
                       std::string method = "GET") {
    fake_request req("/static/" + relative, std::move(method));
    for (auto& [n, v] : headers) req.header(n, v);
    const std::size_t q = relative.find('?');
    return files_->respond(req.get(), std::string_view(relative).substr(0, q));
  }
  stet::static_stats stats() const { return files_->stats(); }

  temp_tree tree_;
  std::unique_ptr<stet::static_files> files_;
};

TEST_F(StaticFiles, ServesASmallFileFromMemoryWithItsHeaders) {
  const auto r = fetch("app.css");
  EXPECT_EQ(code(r), 200u);
  EXPECT_EQ(r.body(), "body{color:red}");
  EXPECT_EQ(r.header("Content-Type"), "text/css; charset=utf-8");
  EXPECT_EQ(r.header("Accept-Ranges"), "bytes");
  EXPECT_EQ(r.header("Cache-Control"), "no-cache");
  ASSERT_TRUE(r.header("ETag"));
  EXPECT_EQ(r.header("ETag")->size(), 18u);
  std::array<char, 29> date{};
  EXPECT_EQ(r.header("Last-Modified"), stet::detail::format_http_date(tree_.stat("site/app.css").st_mtim.tv_sec, date));
  EXPECT_FALSE(r.header("Vary"));
  EXPECT_EQ(r.file(), nullptr);

  const auto again = fetch("app.css");
  EXPECT_EQ(again.body().data(), r.body().data());  // the same shared buffer: no copy
  EXPECT_EQ(again.header("ETag"), r.header("ETag"));
  EXPECT_EQ(stats().reads, 1u);
  EXPECT_EQ(stats().hits, 1u);
  EXPECT_EQ(stats().revalidations, 1u);
  EXPECT_EQ(stats().misses, 1u);
}

TEST_F(StaticFiles, EditInPlaceSameSizeNewMtimeServesNewBytesAndEtag) {
  tree_.write("site/f.txt", std::string(100, 'A'));
  const auto before = fetch("f.txt");
  const auto st = tree_.stat("site/f.txt");
  tree_.overwrite_in_place("site/f.txt", std::string(100, 'B'));
  tree_.set_mtime("site/f.txt", st.st_mtim.tv_sec + 5);
  ASSERT_EQ(tree_.stat("site/f.txt").st_ino, st.st_ino);
  ASSERT_EQ(tree_.stat("site/f.txt").st_size, st.st_size);
  const auto after = fetch("f.txt");
  EXPECT_EQ(after.body(), std::string(100, 'B'));
  EXPECT_NE(after.header("ETag"), before.header("ETag"));
  EXPECT_NE(after.header("Last-Modified"), before.header("Last-Modified"));
  EXPECT_EQ(stats().invalidations, 1u);
  EXPECT_EQ(stats().reads, 2u);
}

TEST_F(StaticFiles, EditWithMtimeSetBackIsCaughtByCtime) {
  tree_.write("site/f.txt", std::string(100, 'A'));
  const auto st = tree_.stat("site/f.txt");
  const auto before = fetch("f.txt");
  std::this_thread::sleep_for(20ms);  // let ctime move past a coarse timestamp tick
  tree_.overwrite_in_place("site/f.txt", std::string(100, 'C'));
  tree_.set_mtime("site/f.txt", st.st_mtim.tv_sec, st.st_mtim.tv_nsec);  // rsync -t, tar x, touch -d
  const auto now = tree_.stat("site/f.txt");
  ASSERT_EQ(now.st_mtim.tv_nsec, st.st_mtim.tv_nsec);
  ASSERT_EQ(now.st_mtim.tv_sec, st.st_mtim.tv_sec);
  const auto after = fetch("f.txt");
  EXPECT_EQ(after.body(), std::string(100, 'C'));
  EXPECT_NE(after.header("ETag"), before.header("ETag"));
}

TEST_F(StaticFiles, ReplaceViaRenameIsANewInode) {
  tree_.write("site/f.txt", "version one");
  const auto st = tree_.stat("site/f.txt");
  const auto before = fetch("f.txt");
  tree_.replace("site/f.txt", "version two");
  tree_.set_mtime("site/f.txt", st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
  ASSERT_NE(tree_.stat("site/f.txt").st_ino, st.st_ino);
  const auto after = fetch("f.txt");
  EXPECT_EQ(after.body(), "version two");
  EXPECT_NE(after.header("ETag"), before.header("ETag"));
}

TEST_F(StaticFiles, GrowingPastTheLimitSwitchesToSendfileAndBack) {
  tree_.write("site/g.bin", pattern_bytes(100));
  auto r = fetch("g.bin");
  EXPECT_EQ(r.file(), nullptr);
  EXPECT_EQ(r.body(), pattern_bytes(100));

  const std::string big = pattern_bytes(2 * 1024 * 1024 + 3, 1);
  tree_.write("site/g.bin", big);
  r = fetch("g.bin");
  ASSERT_NE(r.file(), nullptr);
  EXPECT_EQ(r.content_length(), big.size());
  EXPECT_TRUE(body_of(r) == big);
  const auto reads = stats().reads;
  EXPECT_TRUE(body_of(fetch("g.bin")) == big);
  EXPECT_EQ(stats().reads, reads);  // large files are never read into memory

  tree_.write("site/g.bin", "tiny");
  r = fetch("g.bin");
  EXPECT_EQ(r.file(), nullptr);
  EXPECT_EQ(r.body(), "tiny");
}

TEST_F(StaticFiles, DeletedFileIsEvictedAnd404) {
  tree_.write("site/gone.txt", "here");
  EXPECT_EQ(code(fetch("gone.txt")), 200u);
  const auto entries = stats().entries;
  const auto bytes = stats().bytes_cached;
  std::filesystem::remove(tree_.path("site/gone.txt"));
  EXPECT_EQ(code(fetch("gone.txt")), 404u);
  EXPECT_EQ(stats().entries, entries - 1);
  EXPECT_EQ(stats().bytes_cached, bytes - 4);
  EXPECT_EQ(stats().invalidations, 1u);
}

TEST_F(StaticFiles, RepointedRootSymlinkIsFollowed) {
  tree_.write("v1/app.css", "one");
  tree_.write("v2/app.css", "two");
  std::filesystem::create_directory_symlink("v1", tree_.path("current"));
  start(quick_options(), tree_.path("current").string());
  EXPECT_EQ(fetch("app.css").body(), "one");
  EXPECT_EQ(fetch("app.css").body(), "one");
  std::filesystem::create_directory_symlink("v2", tree_.path("current.new"));
  std::filesystem::rename(tree_.path("current.new"), tree_.path("current"));  // atomic switch
  EXPECT_EQ(fetch("app.css").body(), "two");
  tree_.write("v2/only-in-v2.txt", "new");
  EXPECT_EQ(fetch("only-in-v2.txt").body(), "new");
}

TEST_F(StaticFiles, ByteBudgetIsNeverExceeded) {
  stet::static_options o = quick_options();
  o.cache_budget = 64 * 1024;
  o.max_cached_file_bytes = 16 * 1024;
  start(o);
  std::vector<std::string> contents;
  for (int i = 0; i < 60; ++i) {  // ~480 KiB in all: 7x the budget
    contents.push_back(pattern_bytes(4096 + static_cast<std::size_t>(i) * 137, static_cast<unsigned>(i)));
    tree_.write("site/f" + std::to_string(i) + ".txt", contents.back());
  }
  std::atomic<bool> stop{false};
  std::atomic<std::uint64_t> peak{0};
  std::thread watcher([&] {
    while (!stop.load()) {
      const auto now = stats().bytes_cached;
      if (now > peak.load()) peak = now;
    }
  });
  std::atomic<int> wrong{0};
  std::vector<std::thread> workers;
  for (unsigned t = 0; t < 4; ++t) {
    workers.emplace_back([&, t] {
      std::mt19937 rng(t);
      for (int i = 0; i < 1500; ++i) {
        const std::size_t n = rng() % contents.size();
        fake_request req("/static/f" + std::to_string(n) + ".txt");
        const auto r = files_->respond(req.get(), "f" + std::to_string(n) + ".txt");
        if (r.body() != contents[n]) ++wrong;
      }
    });
  }
  for (auto& w : workers) w.join();
  stop = true;
  watcher.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_LE(peak.load(), o.cache_budget);
  EXPECT_GT(stats().evictions, 0u);
  EXPECT_EQ(stats().bytes_cached, stet::detail::static_files_access::cache(*files_).sum_of_charges());
  EXPECT_GT(stats().hits, 0u);
}

TEST_F(StaticFiles, ConcurrentRequestsForAnUncachedFileReadItOnce) {
  const std::string bytes = pattern_bytes(900 * 1024);
  tree_.write("site/once.bin", bytes);
  constexpr int threads = 8;
  std::latch start_line(threads);
  std::atomic<int> wrong{0};
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&] {
      fake_request req("/static/once.bin");
      start_line.arrive_and_wait();
      if (files_->respond(req.get(), "once.bin").body() != bytes) ++wrong;
    });
  }
  for (auto& w : workers) w.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(stats().reads, 1u);
}

TEST_F(StaticFiles, JustWrittenFilesAreServedButNotCachedUntilSettled) {
  stet::static_options o = quick_options();
  o.settle_time = 300ms;
  start(o);
  tree_.write("site/fresh.txt", "fresh");
  EXPECT_EQ(fetch("fresh.txt").body(), "fresh");
  EXPECT_EQ(fetch("fresh.txt").body(), "fresh");
  EXPECT_EQ(stats().reads, 2u);  // each request read it: the cache did not vouch for it
  std::this_thread::sleep_for(350ms);
  EXPECT_EQ(fetch("fresh.txt").body(), "fresh");
  EXPECT_EQ(fetch("fresh.txt").body(), "fresh");
  EXPECT_EQ(stats().reads, 3u);
}

TEST_F(StaticFiles, RevalidateIntervalSkipsTheStatForAWhile) {
  stet::static_options o = quick_options();
  o.revalidate_interval = 400ms;
  start(o);
  tree_.write("site/r.txt", "old");
  EXPECT_EQ(fetch("r.txt").body(), "old");
  tree_.write("site/r.txt", "newer");
  EXPECT_EQ(fetch("r.txt").body(), "old");  // documented: edits show up within the interval
  EXPECT_EQ(stats().revalidations, 0u);
  std::this_thread::sleep_for(450ms);
  EXPECT_EQ(fetch("r.txt").body(), "newer");
}

TEST_F(StaticFiles, NotModifiedAnswers) {
  const auto first = fetch("app.css");
  const std::string etag(*first.header("ETag"));
  const std::string last_modified(*first.header("Last-Modified"));

  auto r = fetch("app.css", {{"If-None-Match", etag}});
  EXPECT_EQ(code(r), 304u);
  EXPECT_EQ(r.header("ETag"), etag);
  EXPECT_EQ(r.header("Cache-Control"), "no-cache");
  EXPECT_EQ(r.header("Last-Modified"), last_modified);
  EXPECT_TRUE(r.body().empty());
  EXPECT_EQ(r.file(), nullptr);

  EXPECT_EQ(code(fetch("app.css", {{"If-None-Match", "W/" + etag}})), 304u);
  EXPECT_EQ(code(fetch("app.css", {{"If-None-Match", "\"nope\", " + etag}})), 304u);
  EXPECT_EQ(code(fetch("app.css", {{"If-None-Match", "*"}})), 304u);
  EXPECT_EQ(code(fetch("app.css", {{"If-None-Match", "\"nope\""}})), 200u);
  EXPECT_EQ(code(fetch("app.css", {{"If-Modified-Since", last_modified}})), 304u);
  EXPECT_EQ(code(fetch("app.css", {{"If-Modified-Since", "Thu, 01 Jan 1970 00:00:00 GMT"}})), 200u);
  // If-Modified-Since counts only without If-None-Match.
  EXPECT_EQ(code(fetch("app.css", {{"If-None-Match", "\"nope\""}, {"If-Modified-Since", last_modified}})), 200u);
  EXPECT_EQ(code(fetch("app.css", {{"If-Match", "\"nope\""}})), 412u);
  EXPECT_EQ(stats().not_modified, 5u);

  tree_.write("site/app.css", "body{color:blue}");
  EXPECT_EQ(code(fetch("app.css", {{"If-None-Match", etag}})), 200u);  // an edited file never keeps its ETag
}

TEST_F(StaticFiles, RangesOnSmallAndLargeFiles) {
  const std::string small = pattern_bytes(100);
  tree_.write("site/s.bin", small);
  auto r = fetch("s.bin", {{"Range", "bytes=10-19"}});
  EXPECT_EQ(code(r), 206u);
  EXPECT_EQ(r.header("Content-Range"), "bytes 10-19/100");
  EXPECT_EQ(r.body(), small.substr(10, 10));
  r = fetch("s.bin", {{"Range", "bytes=-5"}});
  EXPECT_EQ(r.body(), small.substr(95));
  r = fetch("s.bin", {{"Range", "bytes=90-"}});
  EXPECT_EQ(r.header("Content-Range"), "bytes 90-99/100");
  r = fetch("s.bin", {{"Range", "bytes=100-"}});
  EXPECT_EQ(code(r), 416u);
  EXPECT_EQ(r.header("Content-Range"), "bytes */100");
  r = fetch("s.bin", {{"Range", "bytes=0-1,5-6"}});
  EXPECT_EQ(code(r), 200u);  // multi-range: the whole file
  EXPECT_EQ(r.body(), small);
  const std::string etag(*fetch("s.bin").header("ETag"));
  EXPECT_EQ(code(fetch("s.bin", {{"Range", "bytes=0-0"}, {"If-Range", etag}})), 206u);
  EXPECT_EQ(code(fetch("s.bin", {{"Range", "bytes=0-0"}, {"If-Range", "\"stale\""}})), 200u);
  r = fetch("s.bin", {{"Range", "bytes=0-0"}}, "HEAD");
  EXPECT_EQ(code(r), 200u);

  const std::string big = pattern_bytes(1536 * 1024, 3);
  tree_.write("site/big.bin", big);
  r = fetch("big.bin", {{"Range", "bytes=1048570-1048589"}});
  EXPECT_EQ(code(r), 206u);
  ASSERT_NE(r.file(), nullptr);
  EXPECT_EQ(r.file_offset(), 1048570u);
  EXPECT_EQ(body_of(r), big.substr(1048570, 20));
  EXPECT_EQ(r.header("Content-Range"), "bytes 1048570-1048589/1572864");
  EXPECT_EQ(stats().partial, 5u);
}

TEST_F(StaticFiles, PrecompressedSiblingsFollowAcceptEncoding) {
  tree_.write("site/p.css", "plain css");
  tree_.write("site/p.css.br", "BROTLI");
  tree_.write("site/p.css.gz", "GZIP");
  auto r = fetch("p.css", {{"Accept-Encoding", "gzip, deflate, br"}});
  EXPECT_EQ(r.body(), "BROTLI");
  EXPECT_EQ(r.header("Content-Encoding"), "br");
  EXPECT_EQ(r.header("Content-Type"), "text/css; charset=utf-8");
  EXPECT_EQ(r.header("Vary"), "Accept-Encoding");
  const std::string br_etag(*r.header("ETag"));
  r = fetch("p.css", {{"Accept-Encoding", "gzip"}});
  EXPECT_EQ(r.body(), "GZIP");
  EXPECT_EQ(r.header("Content-Encoding"), "gzip");
  EXPECT_NE(r.header("ETag"), br_etag);  // each representation has its own
  r = fetch("p.css");
  EXPECT_EQ(r.body(), "plain css");
  EXPECT_FALSE(r.header("Content-Encoding"));
  EXPECT_EQ(r.header("Vary"), "Accept-Encoding");  // caches must still key on it
  r = fetch("p.css", {{"Accept-Encoding", "br;q=0, gzip;q=0"}});
  EXPECT_EQ(r.body(), "plain css");
  r = fetch("p.css", {{"Accept-Encoding", "br"}, {"If-None-Match", br_etag}});
  EXPECT_EQ(code(r), 304u);
  EXPECT_EQ(r.header("Vary"), "Accept-Encoding");

  // A sibling older than the file was compressed from an earlier version: ignored.
  const auto st = tree_.stat("site/p.css");
  tree_.set_mtime("site/p.css.br", st.st_mtim.tv_sec - 60);
  r = fetch("p.css", {{"Accept-Encoding", "br"}});
  EXPECT_EQ(r.body(), "plain css");
  EXPECT_FALSE(r.header("Content-Encoding"));
}

TEST_F(StaticFiles, SiblingsAddedLaterAreFoundWithinASecond) {
  tree_.write("site/late.js", "plain");
  EXPECT_FALSE(fetch("late.js").header("Vary"));
  tree_.write("site/late.js.gz", "GZ");
  std::this_thread::sleep_for(1100ms);
  const auto r = fetch("late.js", {{"Accept-Encoding", "gzip"}});
  EXPECT_EQ(r.body(), "GZ");
  EXPECT_EQ(r.header("Vary"), "Accept-Encoding");
}

TEST_F(StaticFiles, HeadOfALargeFileReadsNothing) {
  tree_.write("site/big.bin", pattern_bytes(1200 * 1024));
  const auto reads = stats().reads;
  const auto r = fetch("big.bin", {}, "HEAD");
  EXPECT_EQ(code(r), 200u);
  EXPECT_EQ(r.content_length(), 1200u * 1024);
  EXPECT_EQ(stats().reads, reads);
  EXPECT_EQ(stats().hashes, 0u);
}

TEST_F(StaticFiles, MimeTypesOfServedFiles) {
  const std::pair<std::string, std::string> files[] = {
      {"a.html", "text/html; charset=utf-8"},
      {"a.js", "text/javascript; charset=utf-8"},
      {"a.json", "application/json"},
      {"a.svg", "image/svg+xml"},
      {"a.png", "image/png"},
      {"a.woff2", "font/woff2"},
      {"a.wasm", "application/wasm"},
      {"a.txt", "text/plain; charset=utf-8"},
      {"a.unknown", "application/octet-stream"},
  };
  for (const auto& [name, type] : files) {
    tree_.write("site/" + name, "x");
    EXPECT_EQ(fetch(name).header("Content-Type"), type) << name;
  }
}

TEST_F(StaticFiles, DirectoriesIndexFilesAndRedirects) {
  tree_.write("site/docs/index.html", "docs home");
  std::filesystem::create_directories(tree_.path("site/empty"));
  EXPECT_EQ(fetch("").body(), "<h1>home</h1>");
  EXPECT_EQ(fetch("docs/").body(), "docs home");
  auto r = fetch("docs");
  EXPECT_EQ(code(r), 301u);
  EXPECT_EQ(r.header("Location"), "/static/docs/");
  r = fetch("docs?x=1");
  EXPECT_EQ(r.header("Location"), "/static/docs/?x=1");
  EXPECT_EQ(code(fetch("empty/")), 404u);
  EXPECT_EQ(code(fetch("app.css/")), 404u);
  EXPECT_EQ(code(fetch("missing/")), 404u);
}

TEST_F(StaticFiles, OnlyRegularFilesAndNoDotfiles) {
  ASSERT_EQ(::mkfifo(tree_.path("site/pipe").c_str(), 0600), 0);
  EXPECT_EQ(code(fetch("pipe")), 404u);  // and it did not block on opening a FIFO
  tree_.write("site/.env", "TOKEN=1");
  tree_.write("site/.git/config", "x");
  EXPECT_EQ(code(fetch(".env")), 404u);
  EXPECT_EQ(code(fetch(".git/config")), 404u);
  EXPECT_EQ(code(fetch("%2eenv")), 404u);
  stet::static_options o = quick_options();
  o.show_dotfiles = true;
  start(o);
  EXPECT_EQ(fetch(".env").body(), "TOKEN=1");
}

TEST_F(StaticFiles, OtherMethodsAre405) {
  const auto r = fetch("app.css", {}, "POST");
  EXPECT_EQ(code(r), 405u);
  EXPECT_EQ(r.header("Allow"), "GET, HEAD");
}

TEST_F(StaticFiles, SymlinksInsideTheRootAreServedOutsideOnlyWhenAllowed) {
  std::filesystem::create_symlink("app.css", tree_.path("site/alias.css"));
  std::filesystem::create_symlink("../secret.txt", tree_.path("site/out.txt"));
  EXPECT_EQ(fetch("alias.css").body(), "body{color:red}");
  EXPECT_EQ(code(fetch("out.txt")), 404u);
  EXPECT_GE(stats().refused, 1u);
  stet::static_options o = quick_options();
  o.allow_symlinks_outside_root = true;
  start(o);
  EXPECT_EQ(fetch("out.txt").body(), "SECRET-OUTSIDE-THE-ROOT");
}

// Every attempt returns 4xx, and nothing outside the root is ever opened:
// inotify reports any open of the secret file. Run with openat2 (RESOLVE_BENEATH)
// and with the fallback for kernels without it.
class StaticFilesTraversal : public StaticFiles, public ::testing::WithParamInterface<bool> {};

TEST_P(StaticFilesTraversal, AttemptsAreRefusedAndOpenNothingOutside) {
  if (!GetParam()) stet::detail::static_files_access::root(*files_).disable_openat2();
  tree_.write("site/sub/ok.txt", "ok");
  std::filesystem::create_symlink("../secret.txt", tree_.path("site/link_out"));
  std::filesystem::create_symlink(tree_.path("secret.txt"), tree_.path("site/abs_link"));
  std::filesystem::create_directory_symlink("..", tree_.path("site/dirlink"));
  std::filesystem::create_directory_symlink("../..", tree_.path("site/sub/up2"));
  const int watch = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  ASSERT_GE(watch, 0);
  ASSERT_GE(::inotify_add_watch(watch, tree_.path("secret.txt").c_str(), IN_OPEN | IN_ACCESS), 0);

  const std::string attempts[] = {
      "../secret.txt",
      "..%2fsecret.txt",
      "..%2Fsecret.txt",
      "%2e%2e/secret.txt",
      "%2E%2E/secret.txt",
      "%2e%2e%2fsecret.txt",
      ".%2e/secret.txt",
      "%2e./secret.txt",
      "..%5csecret.txt",
      "..\\secret.txt",
      "%2e%2e%5csecret.txt",
      "sub/../../secret.txt",
      "sub/%2e%2e/%2e%2e/secret.txt",
      "sub%2f..%2f..%2fsecret.txt",
      "/../secret.txt",
      "//../secret.txt",
      "..%00/secret.txt",
      "%00../secret.txt",
      "..;/secret.txt",
      "%c0%ae%c0%ae/secret.txt",
      "%e0%80%ae%e0%80%ae/secret.txt",
      "..%c0%afsecret.txt",
      "%252e%252e/secret.txt",
      "%252e%252e%252fsecret.txt",
      "%u002e%u002e/secret.txt",
      "....//secret.txt",
      "..././secret.txt",
      "%2e%2e%2f%2e%2e%2fsecret.txt",
      "link_out",
      "abs_link",
      "dirlink/secret.txt",
      "sub/up2/secret.txt",
      "sub/../link_out",
      ".%2e",
      "..",
      std::string("..\0/secret.txt", 14),
      "%2e%2e/%2e%2e/%2e%2e/etc/passwd",
  };
  for (const std::string& attempt : attempts) {
    const auto r = fetch(attempt);
    EXPECT_GE(code(r), 400u) << attempt;
    EXPECT_LT(code(r), 500u) << attempt;
    EXPECT_EQ(body_of(r).find("SECRET"), std::string::npos) << attempt;
    EXPECT_FALSE(r.header("Location")) << attempt;
  }
  EXPECT_EQ(fetch("sub/ok.txt").body(), "ok");  // the root itself still works

  char events[4096];
  EXPECT_LT(::read(watch, events, sizeof events), 0) << "something opened the secret file";
  EXPECT_EQ(errno, EAGAIN);
  ::close(watch);
}

INSTANTIATE_TEST_SUITE_P(OpenPaths, StaticFilesTraversal, ::testing::Bool(),
                         [](const auto& p) { return p.param ? "openat2" : "fallback"; });

TEST_F(StaticFiles, FaviconFromTheSiteOrBuiltIn) {
  auto r = fetch("favicon.ico");
  EXPECT_EQ(code(r), 200u);
  EXPECT_EQ(r.header("Content-Type"), "image/x-icon");
  EXPECT_EQ(r.body().substr(0, 4), std::string_view("\0\0\1\0", 4));
  EXPECT_FALSE(r.header("Last-Modified"));
  const std::string etag(*r.header("ETag"));
  EXPECT_EQ(code(fetch("favicon.ico", {{"If-None-Match", etag}})), 304u);
  tree_.write("site/favicon.ico", "SITE-ICON");
  EXPECT_EQ(fetch("favicon.ico").body(), "SITE-ICON");
  stet::static_options o = quick_options();
  o.default_favicon = false;
  start(o);
  std::filesystem::remove(tree_.path("site/favicon.ico"));
  EXPECT_EQ(code(fetch("favicon.ico")), 404u);
}

TEST_F(StaticFiles, StaticUrlCarriesTheContentHashComputedOncePerVersion) {
  const std::string url = files_->static_url("app.css");
  EXPECT_EQ(url, "/static/app.css?_hash=" + hash_of("body{color:red}"));
  EXPECT_EQ(files_->static_url("/app.css"), url);
  EXPECT_EQ(files_->static_url("app.css"), url);
  EXPECT_EQ(stats().hashes, 1u);

  // The URL's hash decides the lifetime.
  const std::string query = url.substr(url.find('?'));
  EXPECT_EQ(fetch("app.css" + query).header("Cache-Control"), "public, max-age=31536000, immutable");
  EXPECT_EQ(fetch("app.css?_hash=0000000000000000").header("Cache-Control"), "public, max-age=60");
  EXPECT_EQ(fetch("app.css?v=1").header("Cache-Control"), "no-cache");
  EXPECT_EQ(stats().hashes, 1u);

  tree_.write("site/app.css", "body{color:green}");
  const std::string updated = files_->static_url("app.css");
  EXPECT_EQ(updated, "/static/app.css?_hash=" + hash_of("body{color:green}"));
  EXPECT_EQ(stats().hashes, 2u);
  const auto stale = fetch("app.css" + query);  // the old page's URL: current bytes, short lifetime
  EXPECT_EQ(stale.body(), "body{color:green}");
  EXPECT_EQ(stale.header("Cache-Control"), "public, max-age=60");

  tree_.write("site/a b+c.css", "x");
  EXPECT_EQ(files_->static_url("a b+c.css"), "/static/a%20b+c.css?_hash=" + hash_of("x"));
  EXPECT_EQ(files_->static_url("missing.css"), "/static/missing.css");
  EXPECT_EQ(files_->static_url("../secret.txt"), "/static/../secret.txt");
  EXPECT_FALSE(files_->content_hash("../secret.txt"));
  EXPECT_EQ(files_->static_url("favicon.ico").substr(0, 26), "/static/favicon.ico?_hash=");
}

// The Cache-Control options are checked once, when the responder is built: a
// value that could not be a field (a line break would split the head) is left
// out of every response, and the others still go out, trimmed of the spaces
// and tabs around them as any field value is.
TEST_F(StaticFiles, AnInvalidCacheControlOptionIsLeftOut) {
  stet::static_options o = quick_options();
  o.cache_control = "no-cache\r\nSet-Cookie: a=b";
  o.stale_hash_cache_control = "max-age=1\n";
  o.immutable_cache_control = " public, immutable\t";
  start(o);
  const auto r = fetch("app.css");
  EXPECT_EQ(code(r), 200u);
  EXPECT_FALSE(r.header("Cache-Control"));
  EXPECT_FALSE(r.header("Set-Cookie"));
  EXPECT_FALSE(fetch("app.css?_hash=0000000000000000").header("Cache-Control"));
  const std::string url = files_->static_url("app.css");
  EXPECT_EQ(fetch("app.css" + url.substr(url.find('?'))).header("Cache-Control"), "public, immutable");
  EXPECT_EQ(files_->options().cache_control, o.cache_control);  // the options stay as given
}

TEST_F(StaticFiles, LargeFilesAreHashedInTheBackground) {
  const std::string big = pattern_bytes(3 * 1024 * 1024, 9);
  tree_.write("site/big.bin", big);
  std::string url = files_->static_url("big.bin");
  for (int i = 0; i < 500 && url.find("_hash") == std::string::npos; ++i) {
    std::this_thread::sleep_for(10ms);
    url = files_->static_url("big.bin");
  }
  EXPECT_EQ(url, "/static/big.bin?_hash=" + hash_of(big));
  EXPECT_EQ(stats().hashes, 1u);
  EXPECT_EQ(fetch(url.substr(8)).header("Cache-Control"), "public, max-age=31536000, immutable");
}

// ---------------------------------------------------------- watched mode --
// With watch_files a hit that no inotify event touched is served without a
// stat; an edit reaches the cache when its event is read. sync() reads what
// the kernel queued, so each test sees its edit's event applied (as the
// watcher thread would, on waking) before it asks again.

class StaticFilesWatched : public StaticFiles {
 protected:
  static stet::static_options watched_options() {
    stet::static_options o = quick_options();
    o.watch_files = true;
    return o;
  }
  void SetUp() override {
    StaticFiles::SetUp();
    start(watched_options());
  }
  void sync() { stet::detail::static_files_access::watch(*files_).sync(); }
};

TEST_F(StaticFilesWatched, HitsNeedNoStatUntilAnEventTouchesTheTree) {
  EXPECT_EQ(fetch("app.css").body(), "body{color:red}");
  for (int i = 0; i < 3; ++i) EXPECT_EQ(fetch("app.css").body(), "body{color:red}");
  sync();  // reading the file made no event that counts (IN_ACCESS, IN_OPEN are not watched)
  EXPECT_EQ(fetch("app.css").body(), "body{color:red}");
  EXPECT_EQ(stats().hits, 4u);
  EXPECT_EQ(stats().revalidations, 0u);
  // An unrelated file written in the tree: every entry is checked by stat once, then trusted again.
  tree_.write("site/other.txt", "x");
  sync();
  fetch("app.css");
  fetch("app.css");
  EXPECT_EQ(stats().revalidations, 1u);
  EXPECT_EQ(stats().reads, 1u);
}

TEST_F(StaticFilesWatched, EditInPlaceWithMtimeSetBackIsServedOnceItsEventIsRead) {
  tree_.write("site/f.txt", std::string(100, 'A'));
  const auto st = tree_.stat("site/f.txt");
  const auto before = fetch("f.txt");
  fetch("f.txt");
  std::this_thread::sleep_for(20ms);  // let ctime move past a coarse timestamp tick
  tree_.overwrite_in_place("site/f.txt", std::string(100, 'B'));
  tree_.set_mtime("site/f.txt", st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
  sync();
  const auto after = fetch("f.txt");
  EXPECT_EQ(after.body(), std::string(100, 'B'));
  EXPECT_NE(after.header("ETag"), before.header("ETag"));
  EXPECT_EQ(stats().invalidations, 1u);
}

TEST_F(StaticFilesWatched, RenameOverAndDeleteAreServedOnceTheirEventsAreRead) {
  tree_.write("site/f.txt", "version one");
  EXPECT_EQ(fetch("f.txt").body(), "version one");
  EXPECT_EQ(fetch("f.txt").body(), "version one");
  tree_.replace("site/f.txt", "version two");
  sync();
  EXPECT_EQ(fetch("f.txt").body(), "version two");
  // The new inode is watched in turn: an edit of it in place is seen too.
  fetch("f.txt");
  tree_.overwrite_in_place("site/f.txt", "VERSION TWO");
  sync();
  EXPECT_EQ(fetch("f.txt").body(), "VERSION TWO");
  std::filesystem::remove(tree_.path("site/f.txt"));
  sync();
  EXPECT_EQ(code(fetch("f.txt")), 404u);
}

TEST_F(StaticFilesWatched, AWriteThroughAHardLinkOutsideTheRootIsSeen) {
  tree_.write("site/f.txt", "linked");
  std::filesystem::create_hard_link(tree_.path("site/f.txt"), tree_.path("elsewhere.txt"));
  EXPECT_EQ(fetch("f.txt").body(), "linked");
  fetch("f.txt");
  tree_.overwrite_in_place("elsewhere.txt", "LINKED");  // no event in any watched directory
  sync();
  EXPECT_EQ(fetch("f.txt").body(), "LINKED");
}

TEST_F(StaticFilesWatched, ARepointedRootSymlinkIsSeenThroughTheDirectoryAboveTheRoot) {
  tree_.write("v1/app.css", "one");
  tree_.write("v2/app.css", "two");
  std::filesystem::create_directory_symlink("v1", tree_.path("current"));
  start(watched_options(), tree_.path("current").string());
  EXPECT_EQ(fetch("app.css").body(), "one");
  EXPECT_EQ(fetch("app.css").body(), "one");
  std::filesystem::create_directory_symlink("v2", tree_.path("current.new"));
  std::filesystem::rename(tree_.path("current.new"), tree_.path("current"));
  sync();
  EXPECT_EQ(fetch("app.css").body(), "two");
}

TEST_F(StaticFilesWatched, WithoutWatchesEveryHitIsCheckedByStat) {
  start(quick_options());  // watch_files = false: as when no watch can be added
  fetch("app.css");
  fetch("app.css");
  fetch("app.css");
  EXPECT_EQ(stats().revalidations, 2u);
  tree_.overwrite_in_place("site/app.css", "body{color:RED}");
  EXPECT_EQ(fetch("app.css").body(), "body{color:RED}");  // no event needed
}

// The ordering that makes the race harmless: the stamp is taken before the
// watch is added and the file read, so an edit landing between the watch and
// the read (or any time after) moves the epoch past the stamp.
TEST(FileWatch, AnEditAfterTheWatchIsAddedMovesTheEpochPastTheStamp) {
  temp_tree tree;
  tree.write("site/f.txt", "one");
  const std::string root = tree.path("site").string();
  stet::detail::file_watch watch(64, /*threaded=*/false);
  const std::uint64_t stamp = watch.epoch();
  ASSERT_TRUE(watch.watch(root, "f.txt"));
  std::ifstream(tree.path("site/f.txt")).get();  // the cache's own read
  watch.sync();
  EXPECT_TRUE(watch.unchanged_since(stamp));     // reads make no event that counts
  tree.overwrite_in_place("site/f.txt", "two");  // the edit that lands before the read
  watch.sync();
  EXPECT_FALSE(watch.unchanged_since(stamp));
  EXPECT_FALSE(watch.unchanged_since(stet::detail::file_watch::unwatched));
}

TEST(FileWatch, DirectoriesAboveTheRootCountOnlyTheNameOnThePath) {
  temp_tree tree;
  tree.write("site/f.txt", "one");
  stet::detail::file_watch watch(64, false);
  ASSERT_TRUE(watch.watch(tree.path("site").string(), "f.txt"));
  const std::uint64_t stamp = watch.epoch();
  tree.write("neighbour.txt", "x");  // beside the root: not on the path
  watch.sync();
  EXPECT_TRUE(watch.unchanged_since(stamp));
  std::filesystem::rename(tree.path("site"), tree.path("site.old"));
  watch.sync();
  EXPECT_FALSE(watch.unchanged_since(stamp));
}

TEST(FileWatch, LostEventsInvalidateEveryStamp) {
  temp_tree tree;
  tree.write("site/f.txt", "one");
  stet::detail::file_watch watch(64, false);
  ASSERT_TRUE(watch.watch(tree.path("site").string(), "f.txt"));
  const std::uint64_t stamp = watch.epoch();
  // More events than the kernel queues for one instance: it drops the rest
  // and queues IN_Q_OVERFLOW instead.
  std::size_t limit = 16384;
  std::ifstream("/proc/sys/fs/inotify/max_queued_events") >> limit;
  ASSERT_LE(limit, 1u << 20) << "max_queued_events too large to overflow in a test";
  // Two files in turn: the kernel merges an event identical to the one queued last.
  const int a = ::open(tree.path("site/a.txt").c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  const int b = ::open(tree.path("site/b.txt").c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  ASSERT_GE(a, 0);
  ASSERT_GE(b, 0);
  for (std::size_t i = 0; i <= limit; ++i) ASSERT_EQ(::pwrite(i % 2 ? a : b, "x", 1, 0), 1);  // IN_MODIFY each
  ::close(a);
  ::close(b);
  watch.sync();
  EXPECT_GE(watch.overflows(), 1u);
  EXPECT_FALSE(watch.unchanged_since(stamp));
}

TEST(FileWatch, NoWatchesLeftMeansUnwatched) {
  temp_tree tree;
  tree.write("site/d/f.txt", "one");
  stet::detail::file_watch none(0, false);
  EXPECT_FALSE(none.watch(tree.path("site").string(), "d/f.txt"));
  stet::detail::file_watch few(2, false);  // "/" and one more: not the whole path
  EXPECT_FALSE(few.watch(tree.path("site").string(), "d/f.txt"));
}

TEST(StaticFilesRoot, MissingRootThrows) {
  EXPECT_THROW(stet::static_files("/nonexistent/stet/root"), std::system_error);
}

}  // namespace

// #26: the URL prefix is said once, to mount(): static_url() follows the first
// mount of the files ("/static/" before any), and the deprecated
// static_options::url_prefix, when a program still sets it, keeps its meaning.
TEST(StaticUrl, FollowsTheFirstMount) {
  temp_tree tree;
  tree.write("site/app.css", "x");
  auto files = std::make_shared<stet::static_files>(tree.path("site").string());
  EXPECT_EQ(files->static_url("app.css").substr(0, 16), "/static/app.css?");
  stet::router routes;
  stet::mount(routes, "/assets/", files);
  stet::mount(routes, "/other", files);
  EXPECT_EQ(files->static_url("app.css").substr(0, 16), "/assets/app.css?");
  EXPECT_EQ(files->static_url("/app.css").substr(0, 16), "/assets/app.css?");

  auto at_root = std::make_shared<stet::static_files>(tree.path("site").string());
  stet::mount(routes, "/", at_root);
  EXPECT_EQ(at_root->static_url("app.css").substr(0, 9), "/app.css?");
}

TEST(StaticUrl, TheDeprecatedPrefixStillWinsWhenSet) {
  temp_tree tree;
  tree.write("site/app.css", "x");
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  const stet::static_options o{.url_prefix = "/cdn/"};
#pragma GCC diagnostic pop
  auto files = std::make_shared<stet::static_files>(tree.path("site").string(), o);
  stet::router routes;
  stet::mount(routes, "/static", files);
  EXPECT_EQ(files->static_url("app.css").substr(0, 13), "/cdn/app.css?");
}
