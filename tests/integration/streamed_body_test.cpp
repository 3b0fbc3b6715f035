// Streamed request bodies over real sockets: per-route limits decided before
// 100 Continue, handlers that answer on the head, back-pressure from a sink
// that pauses, a client that goes away mid-body, the minimum body rate, and
// a large upload in constant memory.

#include "support/http_client.hpp"
#include "support/stalled_send.hpp"
#include "support/test_server.hpp"

#include <stet/body.hpp>
#include <stet/error.hpp>
#include <stet/router.hpp>
#include <stet/upload_file.hpp>

#include <gtest/gtest.h>

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

namespace {

using namespace std::chrono_literals;
using namespace stet::test;

// What the sinks saw, shared with the test thread.
struct sink_log {
  std::mutex mutex;
  std::condition_variable changed;
  std::uint64_t bytes = 0;
  std::uint64_t pieces = 0;
  std::uint64_t checksum = 0;  // order-sensitive, so a reordered or repeated piece shows
  int ended = 0;
  int aborted = 0;
  std::error_code abort_reason;

  void add(std::string_view piece) {
    const std::lock_guard lock(mutex);
    bytes += piece.size();
    ++pieces;
    for (const char c : piece) checksum = checksum * 31 + static_cast<unsigned char>(c);
  }
  template <class Done>
  bool wait(Done done, std::chrono::milliseconds timeout = 10s) {
    std::unique_lock lock(mutex);
    return changed.wait_for(lock, timeout, [&] { return done(*this); });
  }
  void note(int sink_log::*field, std::error_code why = {}) {
    {
      const std::lock_guard lock(mutex);
      ++(this->*field);
      if (why) abort_reason = why;
    }
    changed.notify_all();
  }
};

std::uint64_t checksum_of(std::string_view bytes, std::uint64_t seed = 0) {
  for (const char c : bytes) seed = seed * 31 + static_cast<unsigned char>(c);
  return seed;
}

// Counts the body; answers with its size. Optionally pauses after each
// piece until the test resumes it (through `paused`).
class counting_sink final : public stet::body_sink {
 public:
  counting_sink(sink_log& log, std::atomic<counting_sink*>* paused) : log_(log), paused_(paused) {}
  stet::body_flow on_data(std::string_view piece) override {
    log_.add(piece);
    mine_ += piece.size();
    log_.changed.notify_all();
    if (paused_ == nullptr) return stet::body_flow::more;
    paused_->store(this);
    return stet::body_flow::pause;
  }
  stet::response on_end() override {
    log_.note(&sink_log::ended);
    return stet::response::text(std::to_string(mine_));
  }
  void on_abort(std::error_code why) noexcept override { log_.note(&sink_log::aborted, why); }

 private:
  sink_log& log_;
  std::atomic<counting_sink*>* paused_;
  std::uint64_t mine_ = 0;
};

// Writes the body to an upload_file; commits it as "done" at the end.
class file_sink final : public stet::body_sink {
 public:
  file_sink(sink_log& log, const std::string& dir) : log_(log), file_(dir) {}
  stet::body_flow on_data(std::string_view piece) override {
    log_.add(piece);
    if (file_.write(piece)) return stet::body_flow::answer;
    return stet::body_flow::more;
  }
  stet::response on_end() override {
    log_.note(&sink_log::ended);
    if (file_.error()) return stet::response::text(file_.error().message(), stet::status::internal_server_error);
    const stet::upload_commit_result done = file_.commit("done");
    return stet::response::text(done ? std::string(done.info.sha256_hex()) : done.error.message());
  }
  void on_abort(std::error_code why) noexcept override {
    file_.abort();
    log_.note(&sink_log::aborted, why);
  }

 private:
  sink_log& log_;
  stet::upload_file file_;
};

std::string head(std::string_view method, std::string_view target, std::string_view fields) {
  return std::string(method) + " " + std::string(target) + " HTTP/1.1\r\nHost: test\r\n" + std::string(fields) + "\r\n";
}

std::string content_length(std::uint64_t n) { return "Content-Length: " + std::to_string(n) + "\r\n"; }

stet::route_options limited(std::uint64_t max_body_bytes) {
  stet::route_options o;
  o.max_body_bytes = max_body_bytes;
  return o;
}

class StreamedBody : public ::testing::Test {
 protected:
  StreamedBody() : dir_(make_dir()) {}
  ~StreamedBody() override { std::filesystem::remove_all(dir_); }

  static std::string make_dir() {
    std::string templ = (std::filesystem::temp_directory_path() / "stet-body-XXXXXX").string();
    if (::mkdtemp(templ.data()) == nullptr) throw std::runtime_error("mkdtemp");
    return templ;
  }

  stet::router routes() {
    stet::router r;
    stet::route_options streamed;
    streamed.max_body_bytes = std::uint64_t{4} << 30;
    streamed.stream_body = true;
    r.put("/count", streamed,
          [this](stet::request&) { return stet::read_body(std::make_unique<counting_sink>(log_, nullptr)); });
    r.put("/paced", streamed,
          [this](stet::request&) { return stet::read_body(std::make_unique<counting_sink>(log_, &paused_)); });
    r.put("/file", streamed,
          [this](stet::request&) { return stet::read_body(std::make_unique<file_sink>(log_, dir_)); });
    r.put("/private", streamed, [this](stet::request& req) {
      if (req.header("authorization") != "Bearer yes") {
        return stet::response::text("no", stet::status::unauthorized);
      }
      return stet::read_body(std::make_unique<counting_sink>(log_, nullptr));
    });
    // A group whose middleware refuses on the head: the handler never runs.
    stet::route_group guarded = r.group("/guarded");
    guarded.before([](stet::request& req) -> std::optional<stet::response> {
      if (req.header("x-key") == "k") return std::nullopt;
      return stet::response::text("refused by middleware", stet::status::forbidden);
    });
    guarded.after([](stet::request&, stet::response& res) { res.set_header("X-After", "ran"); });
    guarded.put("/in", streamed,
                [this](stet::request&) { return stet::read_body(std::make_unique<counting_sink>(log_, nullptr)); });
    // Buffered, with a route limit above and one below the server's.
    r.post("/big", limited(512 * 1024),
           [](stet::request& req) { return stet::response::text(std::to_string(req.body().size())); });
    r.post("/small", limited(100),
           [](stet::request& req) { return stet::response::text(std::to_string(req.body().size())); });
    r.get("/plaintext", [](stet::request&) { return stet::response::text("Hello, World!"); });
    return r;
  }

  static stet::server_options options() {
    stet::server_options o = test_options();
    o.max_body_bytes = 1024;
    o.min_body_rate = 200;
    o.body_rate_window = 400ms;
    return o;
  }

  bool files_left() const { return !std::filesystem::is_empty(dir_); }

  sink_log log_;
  std::atomic<counting_sink*> paused_{nullptr};
  std::string dir_;
  running_server server_{routes(), options()};
};

TEST_F(StreamedBody, RouteLimitAboveTheServersIsHonoured) {
  raw_client c(server_.port());
  const auto r = c.request("POST", "/big", {}, std::string(300'000, 'b'));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, "300000");
}

TEST_F(StreamedBody, RouteLimitBelowTheServersRefusesBeforeAnyContinue) {
  raw_client c(server_.port());
  ASSERT_TRUE(c.send(head("POST", "/small", content_length(101) + "Expect: 100-continue\r\n")));
  const std::string all = c.read_until_close(3s);
  EXPECT_EQ(all.find("100 Continue"), std::string::npos) << all;
  EXPECT_NE(all.find("HTTP/1.1 413"), std::string::npos) << all;
}

TEST_F(StreamedBody, ContinueIsSentWhenTheRouteTakesTheBody) {
  raw_client c(server_.port());
  ASSERT_TRUE(c.send(head("POST", "/big", content_length(2000) + "Expect: 100-continue\r\n")));
  const std::string interim = c.read_once(3s);
  EXPECT_EQ(interim.rfind("HTTP/1.1 100 Continue\r\n\r\n", 0), 0u) << interim;
  ASSERT_TRUE(c.send(std::string(2000, 'x')));
  const auto r = c.read_response();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->body, "2000");
}

TEST_F(StreamedBody, ChunkedBodyCrossingTheRouteLimitGets413) {
  raw_client c(server_.port());
  ASSERT_TRUE(c.send(head("POST", "/small", "Transfer-Encoding: chunked\r\n") + "50\r\n" + std::string(80, 'a') +
                     "\r\n50\r\n" + std::string(80, 'a') + "\r\n0\r\n\r\n"));
  const auto r = c.read_response();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 413);
}

TEST_F(StreamedBody, PiecesArriveInOrderAndTheAnswerFollowsTheEnd) {
  std::string body(5 * 1024 * 1024 + 17, '\0');
  for (std::size_t i = 0; i < body.size(); ++i) body[i] = static_cast<char>('a' + (i * 7 + i / 4096) % 26);
  raw_client c(server_.port());
  const auto r = c.request("PUT", "/count", {}, body);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, std::to_string(body.size()));
  const std::lock_guard lock(log_.mutex);
  EXPECT_EQ(log_.checksum, checksum_of(body));
  EXPECT_GT(log_.pieces, 1u);
  EXPECT_EQ(log_.ended, 1);
  EXPECT_EQ(log_.aborted, 0);
}

TEST_F(StreamedBody, ChunkedBodiesStreamDechunked) {
  raw_client c(server_.port());
  std::string chunked;
  std::string plain;
  for (int i = 0; i < 50; ++i) {
    const std::string piece(1000 + i, static_cast<char>('A' + i % 26));
    char size[16];
    std::snprintf(size, sizeof size, "%zx\r\n", piece.size());
    chunked += size + piece + "\r\n";
    plain += piece;
  }
  chunked += "0\r\n\r\n";
  ASSERT_TRUE(c.send(head("PUT", "/count", "Transfer-Encoding: chunked\r\n") + chunked));
  const auto r = c.read_response();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->body, std::to_string(plain.size()));
  const std::lock_guard lock(log_.mutex);
  EXPECT_EQ(log_.checksum, checksum_of(plain));
}

TEST_F(StreamedBody, StreamedUploadsKeepTheConnection) {
  raw_client c(server_.port());
  for (int i = 0; i < 3; ++i) {
    const auto r = c.request("PUT", "/count", {}, std::string(100'000, 'k'));
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 200);
  }
  const auto r = c.request("GET", "/plaintext");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->body, "Hello, World!");
}

TEST_F(StreamedBody, AnEarlyRefusalNeedsNoneOfTheBody) {
  raw_client c(server_.port());
  ASSERT_TRUE(c.send(head("PUT", "/private", content_length(std::uint64_t{1} << 29) + "Expect: 100-continue\r\n")));
  const std::string all = c.read_until_close(3s);
  EXPECT_EQ(all.find("100 Continue"), std::string::npos) << all;
  EXPECT_NE(all.find("HTTP/1.1 401"), std::string::npos) << all;
  const std::lock_guard lock(log_.mutex);
  EXPECT_EQ(log_.bytes, 0u);
}

TEST_F(StreamedBody, MiddlewareRunsOnTheHeadAndItsAfterHooksOnTheSinksAnswer) {
  raw_client c(server_.port());
  ASSERT_TRUE(c.send(head("PUT", "/guarded/in", content_length(std::uint64_t{1} << 29) + "Expect: 100-continue\r\n")));
  const std::string refused = c.read_until_close(3s);
  EXPECT_EQ(refused.find("100 Continue"), std::string::npos) << refused;
  EXPECT_NE(refused.find("HTTP/1.1 403"), std::string::npos) << refused;
  raw_client d(server_.port());
  const auto taken = d.request("PUT", "/guarded/in", "X-Key: k\r\n", std::string(70'000, 'm'));
  ASSERT_TRUE(taken);
  EXPECT_EQ(taken->body, "70000");
  EXPECT_EQ(taken->header("x-after"), "ran");
}

TEST_F(StreamedBody, AnEarlyRefusalOfASmallBodyKeepsTheConnection) {
  raw_client c(server_.port());
  const auto refused = c.request("PUT", "/private", {}, std::string(50'000, 'p'));
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->status, 401);
  const auto next = c.request("GET", "/plaintext");
  ASSERT_TRUE(next);
  EXPECT_EQ(next->body, "Hello, World!");
  const auto allowed = c.request("PUT", "/private", "Authorization: Bearer yes\r\n", std::string(3000, 'q'));
  ASSERT_TRUE(allowed);
  EXPECT_EQ(allowed->body, "3000");
}

TEST_F(StreamedBody, AnEarlyRefusalOfAHugeBodyClosesAfterTheAnswer) {
  raw_client c(server_.port());
  ASSERT_TRUE(c.send(head("PUT", "/private", content_length(std::uint64_t{1} << 29)) + std::string(100'000, 'z')));
  const auto r = c.read_response();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 401);
  EXPECT_EQ(r->header("connection"), "close");
  EXPECT_TRUE(c.wait_closed(3s));
}

// While the sink holds a piece the connection reads nothing: the client's
// sends stall once the socket buffers are full, far short of the body.
TEST_F(StreamedBody, APausedSinkStopsTheReading) {
  constexpr std::uint64_t total = std::uint64_t{256} << 20;
  raw_client c(server_.port());
  ASSERT_TRUE(c.send(head("PUT", "/paced", content_length(total))));
  std::uint64_t sent = send_until_stalled(c, total);
  EXPECT_LT(sent, total / 4) << "the server kept reading while its sink was paused";
  {
    const std::lock_guard lock(log_.mutex);
    EXPECT_EQ(log_.pieces, 1u);
  }
  // Resumed piece by piece, the whole body arrives.
  std::thread resumer([&] {
    for (;;) {
      if (counting_sink* s = paused_.exchange(nullptr)) s->resume();
      {
        const std::lock_guard lock(log_.mutex);
        if (log_.ended + log_.aborted > 0) return;
      }
      std::this_thread::yield();
    }
  });
  send_rest(c, sent, total);
  const auto r = c.read_response(false, 60s);
  resumer.join();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->body, std::to_string(total));
}

TEST_F(StreamedBody, AClientGoneMidBodyAbortsTheSinkAndLeavesNoFile) {
  {
    raw_client c(server_.port());
    ASSERT_TRUE(c.send(head("PUT", "/file", content_length(1'000'000)) + std::string(300'000, 'f')));
    ASSERT_TRUE(log_.wait([](sink_log& l) { return l.bytes >= 300'000; }));
  }
  ASSERT_TRUE(log_.wait([](sink_log& l) { return l.aborted == 1; }));
  EXPECT_EQ(log_.ended, 0);
  EXPECT_FALSE(files_left());
}

TEST_F(StreamedBody, ACompleteUploadIsCommitted) {
  raw_client c(server_.port());
  const auto r = c.request("PUT", "/file", {}, "abc");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->body, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  std::ifstream in(dir_ + "/done");
  std::string content;
  std::getline(in, content);
  EXPECT_EQ(content, "abc");
}

// A byte every 100 ms never trips the body timeout (2 s) but is far below
// the minimum rate of 200 bytes a second.
TEST_F(StreamedBody, ASlowDripIsCutByTheMinimumRate) {
  raw_client c(server_.port());
  ASSERT_TRUE(c.send(head("PUT", "/count", content_length(1000))));
  bool closed = false;
  for (int i = 0; i < 40 && !closed; ++i) {
    closed = !c.send("d");
    std::this_thread::sleep_for(100ms);
    if (log_.wait([](sink_log& l) { return l.aborted > 0; }, 1ms)) break;
  }
  ASSERT_TRUE(log_.wait([](sink_log& l) { return l.aborted == 1; }));
  EXPECT_EQ(log_.abort_reason, stet::make_error_code(stet::error::body_too_slow));
  const std::string rest = c.read_until_close(3s);
  EXPECT_NE(rest.find("HTTP/1.1 408"), std::string::npos) << rest;
}

TEST_F(StreamedBody, ABodilessRequestReachesTheSinksEnd) {
  raw_client c(server_.port());
  const auto r = c.request("PUT", "/count", {}, "");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, "0");
  const std::lock_guard lock(log_.mutex);
  EXPECT_EQ(log_.ended, 1);
}

// A sink that pauses and never resumes: handler_timeout answers 503 and
// aborts it (the sink's wake-up held the connection's last reference).
TEST(StreamedBodyTimeout, APausedSinkPastHandlerTimeoutIs503) {
  sink_log log;
  std::atomic<counting_sink*> paused{nullptr};
  stet::router r;
  stet::route_options streamed;
  streamed.stream_body = true;
  r.put("/paced", streamed,
        [&](stet::request&) { return stet::read_body(std::make_unique<counting_sink>(log, &paused)); });
  stet::server_options o = test_options();
  o.handler_timeout = 100ms;
  running_server s(std::move(r), o);
  raw_client c(s.port());
  ASSERT_TRUE(c.send(head("PUT", "/paced", content_length(1000)) + "a piece"));
  const auto answer = c.read_response();
  ASSERT_TRUE(answer);
  EXPECT_EQ(answer->status, 503);
  EXPECT_TRUE(c.wait_closed(3s));
  ASSERT_TRUE(log.wait([](sink_log& l) { return l.aborted == 1; }));
  EXPECT_EQ(log.abort_reason, std::make_error_code(std::errc::timed_out));
  raw_client fresh(s.port());
  ASSERT_TRUE(fresh.send(head("PUT", "/paced", content_length(3)) + "abc"));
  ASSERT_TRUE(log.wait([](sink_log& l) { return l.pieces == 2; }));
}

std::uint64_t resident_bytes() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::strtoull(line.c_str() + 6, nullptr, 10) * 1024;
  }
  return 0;
}

// The body goes through the connection's read buffer piece by piece: a
// gigabyte costs the process no more memory than a few megabytes do.
TEST_F(StreamedBody, AGigabyteUploadRunsInConstantMemory) {
  const std::string block(1 << 20, 'g');
  auto upload = [&](std::uint64_t total) {
    raw_client c(server_.port());
    if (!c.send(head("PUT", "/count", content_length(total)))) return false;
    for (std::uint64_t sent = 0; sent < total; sent += block.size()) {
      if (!c.send(block)) {
        ADD_FAILURE() << "the server stopped taking the body after " << sent << " bytes: " << c.read_until_close(1s);
        return false;
      }
    }
    const auto r = c.read_response(false, 120s);
    if (!r) ADD_FAILURE() << "no answer";
    if (r && r->body != std::to_string(total)) ADD_FAILURE() << r->status << " " << r->body;
    return r && r->body == std::to_string(total);
  };
  ASSERT_TRUE(upload(std::uint64_t{8} << 20));  // warm: buffers, pools and the allocator's arenas exist
  const std::uint64_t before = resident_bytes();
  ASSERT_TRUE(upload(std::uint64_t{1} << 30));
  const std::uint64_t after = resident_bytes();
  EXPECT_LT(after, before + 2 * 1024 * 1024) << "RSS grew from " << before << " to " << after;
}

}  // namespace
