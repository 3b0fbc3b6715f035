// A coroutine handler reading its streamed body with co_await (stet::body_stream)
// over real sockets: pieces in order, Content-Length and chunked; back-pressure
// while the handler holds a piece; pieces that stay valid across offload and
// sleep_for; early answers with the rest discarded; a client gone, the body
// timeout, handler_timeout and a server stop while the handler waits for a
// piece or holds one; pipelined requests behind a streamed body. Each frame
// holds a guard that reads the request in its destructor, so a request
// released before its frame shows (ASan, or a guard that finds it empty).
#include <stet/stet.hpp>

#include "support/alloc_counter.hpp"
#include "support/expectations.hpp"
#include "support/gate.hpp"
#include "support/http_client.hpp"
#include "support/stalled_send.hpp"
#include "support/test_server.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace {

using namespace std::chrono_literals;
using stet::request;
using stet::response;
using stet::task;
using stet::test::raw_client;

bool eventually(const std::function<bool()>& done) { return stet::test::eventually(done, 5s); }

std::uint64_t checksum_of(std::string_view bytes, std::uint64_t seed = 0) {
  for (const char c : bytes) seed = seed * 31 + static_cast<unsigned char>(c);
  return seed;
}

using stet::test::gate;

// What the handlers tell the test.
struct observed {
  gate pool_gate;
  std::atomic<int> guards_destroyed{0};
  std::atomic<int> guards_without_request{0};
  std::atomic<std::uint64_t> pieces{0};
  std::atomic<int> errors_seen{0};
  std::atomic<int> finished{0};
  std::mutex mutex;
  std::error_code last_error;
  std::vector<stet::promise<void>> promises;

  void saw_error(std::error_code e) {
    {
      const std::lock_guard lock(mutex);
      last_error = e;
    }
    errors_seen.fetch_add(1);
  }
  std::error_code error() {
    const std::lock_guard lock(mutex);
    return last_error;
  }
  std::size_t waiting_promises() {
    const std::lock_guard lock(mutex);
    return promises.size();
  }
};

// Lives in a handler's frame: its destructor reads the request, which must
// still be there, unchanged, whenever the frame goes (finished or cancelled).
// (A released request's exchange is reused by the next request on its worker.)
struct frame_guard {
  frame_guard(request& r, observed& s) : req(r), seen(s), path(r.path()) {}
  frame_guard(const frame_guard&) = delete;
  frame_guard& operator=(const frame_guard&) = delete;
  ~frame_guard() {
    if (req.path() != path) {
      seen.guards_without_request.fetch_add(1);
    } else {
      seen.guards_destroyed.fetch_add(1);
    }
  }
  request& req;
  observed& seen;
  std::string path;
};

// Requests on fresh connections: any exchange given back meanwhile is reused.
void churn(std::uint16_t port) {
  for (int i = 0; i < 6; ++i) {
    raw_client c(port);
    const auto r = c.request("GET", "/plaintext");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->body, "Hello, World!");
  }
}

response summary(std::uint64_t bytes, std::uint64_t sum) {
  return response::text(std::to_string(bytes) + " " + std::to_string(sum));
}

// Reads the whole body; `between` runs after each piece (before the piece is
// summed, so the sum shows the piece outlived it).
template <class Between>
task<response> sum_body(request& req, std::shared_ptr<observed> seen, Between between) {
  const frame_guard guard(req, *seen);
  auto body = co_await stet::body_stream(req);
  std::uint64_t bytes = 0;
  std::uint64_t sum = 0;
  while (auto piece = co_await body.next()) {
    seen->pieces.fetch_add(1);
    co_await between(*piece);
    bytes += piece->size();
    sum = checksum_of(*piece, sum);
  }
  if (body.error()) {
    seen->saw_error(body.error());
    co_return response::text("error", stet::status::bad_request);
  }
  seen->finished.fetch_add(1);
  co_return summary(bytes, sum);
}

task<void> nothing(std::string_view) { co_return; }

stet::router body_routes(const std::shared_ptr<observed>& seen) {
  stet::router r;
  stet::route_options streamed;
  streamed.stream_body = true;
  streamed.max_body_bytes = std::uint64_t{1} << 30;
  r.post("/sum", streamed, [seen](request& req) { return sum_body(req, seen, nothing); });
  r.post("/sleepy", streamed, [seen](request& req) {
    return sum_body(req, seen, [](std::string_view) -> task<void> { co_await stet::sleep_for(0ms); });
  });
  // The piece is read on a pool thread while the connection waits.
  r.post("/offload", streamed, [seen](request& req) {
    return sum_body(req, seen, [](std::string_view piece) -> task<void> {
      const std::uint64_t there = co_await stet::offload([piece] { return checksum_of(piece); });
      if (there != checksum_of(piece)) throw std::runtime_error("the piece changed during the offload");
    });
  });
  // Each piece waits for the test to set a promise: a consumer as slow as the test wants.
  r.post("/held", streamed, [seen](request& req) {
    return sum_body(req, seen, [seen](std::string_view) -> task<void> {
      auto [promise, future] = stet::make_promise<void>();
      {
        const std::lock_guard lock(seen->mutex);
        seen->promises.push_back(std::move(promise));
      }
      co_await future;
    });
  });
  // Each piece waits for the gate, on the pool.
  r.post("/gated", streamed, [seen](request& req) {
    return sum_body(req, seen, [seen](std::string_view) -> task<void> {
      co_await stet::offload([](const std::shared_ptr<observed>& s) { s->pool_gate.pass(); }, seen);
    });
  });
  // Checks something on the pool before reading any of the body.
  r.post("/vetted", streamed, [seen](request& req) -> task<response> {
    const frame_guard guard(req, *seen);
    auto body = co_await stet::body_stream(req);
    co_await stet::offload([](const std::shared_ptr<observed>& s) { s->pool_gate.pass(); }, seen);
    std::uint64_t bytes = 0;
    while (auto piece = co_await body.next()) bytes += piece->size();
    if (body.error()) seen->saw_error(body.error());
    co_return response::text(std::to_string(bytes));
  });
  r.post("/sleep-long", streamed, [seen](request& req) {
    return sum_body(req, seen, [](std::string_view) -> task<void> { co_await stet::sleep_for(60s); });
  });
  // Refuses on the head, before asking for the body.
  r.post("/private", streamed, [seen](request& req) -> task<response> {
    if (req.header("authorization") != "Bearer yes") co_return response::text("no", stet::status::unauthorized);
    co_return co_await sum_body(req, seen, nothing);
  });
  // Asks for the body, then refuses after its first piece.
  r.post("/first", streamed, [seen](request& req) -> task<response> {
    const frame_guard guard(req, *seen);
    auto body = co_await stet::body_stream(req);
    const auto piece = co_await body.next();
    co_return response::text("first " + std::to_string(piece ? piece->size() : 0), stet::status::payload_too_large);
  });
  // Asks too late: after suspending.
  r.post("/late", streamed, [](request& req) -> task<response> {
    co_await stet::sleep_for(0ms);
    auto body = co_await stet::body_stream(req);
    co_return response::text("unreachable");
  });
  stet::route_options small = streamed;
  small.max_body_bytes = 100'000;
  r.post("/small", small, [seen](request& req) { return sum_body(req, seen, nothing); });
  r.post("/buffered", [seen](request& req) { return sum_body(req, seen, nothing); });
  r.get("/plaintext", [](request&) { return response::text("Hello, World!"); });
  return r;
}

std::string post_head(std::string_view target, std::string_view fields) {
  return "POST " + std::string(target) + " HTTP/1.1\r\nHost: x\r\n" + std::string(fields) + "\r\n";
}
std::string content_length(std::uint64_t n) { return "Content-Length: " + std::to_string(n) + "\r\n"; }

std::string patterned(std::size_t n) {
  std::string body(n, '\0');
  for (std::size_t i = 0; i < n; ++i) body[i] = static_cast<char>('a' + (i * 7 + i / 4096) % 26);
  return body;
}

std::string expected(std::string_view body) {
  return std::to_string(body.size()) + " " + std::to_string(checksum_of(body));
}

class CoroBody : public ::testing::Test {
 protected:
  void start(stet::server_options o = options()) {
    server_ = std::make_unique<stet::test::running_server>(body_routes(seen_), std::move(o));
  }
  static stet::server_options options() {
    stet::server_options o = stet::test::test_options();
    o.offload_threads = 2;
    return o;
  }
  std::uint16_t port() const { return server_->port(); }
  // Sets every promise a /held handler waits on, as they come, until `done`.
  std::thread releaser(const std::atomic<bool>& done) {
    return std::thread([this, &done] {
      while (!done.load()) {
        std::vector<stet::promise<void>> ready;
        {
          const std::lock_guard lock(seen_->mutex);
          ready.swap(seen_->promises);
        }
        for (auto& p : ready) p.set_value();
        std::this_thread::sleep_for(50us);
      }
    });
  }
  void TearDown() override {
    seen_->pool_gate.open();
    server_.reset();
    EXPECT_EQ(seen_->guards_without_request.load(), 0) << "a frame outlived its request";
  }

  std::shared_ptr<observed> seen_ = std::make_shared<observed>();
  std::unique_ptr<stet::test::running_server> server_;
};

TEST_F(CoroBody, AContentLengthBodyIsReadPieceByPiece) {
  start();
  const std::string body = patterned(3 * 1024 * 1024 + 5);
  raw_client c(port());
  const auto r = c.request("POST", "/sum", {}, body);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, expected(body));
  EXPECT_GT(seen_->pieces.load(), 1u);
  EXPECT_EQ(seen_->errors_seen.load(), 0);
  ASSERT_TRUE(eventually([this] { return seen_->guards_destroyed.load() == 1; }));
}

TEST_F(CoroBody, AChunkedBodyIsReadDechunked) {
  start();
  std::string chunked;
  std::string plain;
  for (int i = 0; i < 60; ++i) {
    const std::string piece(1000 + 37 * i, static_cast<char>('A' + i % 26));
    char size[16];
    std::snprintf(size, sizeof size, "%zx\r\n", piece.size());
    chunked += size + piece + "\r\n";
    plain += piece;
  }
  chunked += "0\r\n\r\n";
  raw_client c(port());
  ASSERT_TRUE(c.send(post_head("/sum", "Transfer-Encoding: chunked\r\n") + chunked));
  const auto r = c.read_response();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->body, expected(plain));
  const auto next = c.request("GET", "/plaintext");
  ASSERT_TRUE(next);
  EXPECT_EQ(next->body, "Hello, World!");
}

TEST_F(CoroBody, AnEmptyBodyEndsAtOnce) {
  start();
  raw_client c(port());
  const auto r = c.request("POST", "/sum", {}, "");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->body, "0 0");
}

// The piece is summed after a sleep_for and read on a pool thread during an
// offload: it stays put while the handler is elsewhere.
TEST_F(CoroBody, PiecesStayValidAcrossSleepAndOffload) {
  start();
  const std::string body = patterned(4 * 1024 * 1024 + 3);
  raw_client c(port());
  for (const char* target : {"/sleepy", "/offload"}) {
    const auto r = c.request("POST", target, {}, body);
    ASSERT_TRUE(r) << target;
    EXPECT_EQ(r->status, 200) << target << ": " << r->body;
    EXPECT_EQ(r->body, expected(body)) << target;
  }
}

// While the handler holds a piece (awaiting something else), the connection
// reads nothing: the client's sends stall far short of the body, with one
// piece handed over. Released piece by piece, the whole body arrives.
TEST_F(CoroBody, AHandlerHoldingAPieceStopsTheReading) {
  start();
  constexpr std::uint64_t total = std::uint64_t{64} << 20;
  raw_client c(port());
  ASSERT_TRUE(c.send(post_head("/held", content_length(total))));
  const std::uint64_t sent = stet::test::send_until_stalled(c, total);
  EXPECT_LT(sent, total / 4) << "the server kept reading while the handler held a piece";
  EXPECT_EQ(seen_->pieces.load(), 1u);
  EXPECT_EQ(seen_->waiting_promises(), 1u);
  std::atomic<bool> done{false};
  std::thread release = releaser(done);
  stet::test::send_rest(c, sent, total);
  const auto r = c.read_response(false, 120s);
  done = true;
  release.join();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->body.substr(0, r->body.find(' ')), std::to_string(total));
}

TEST_F(CoroBody, ARefusalBeforeTheBodyKeepsTheConnection) {
  start();
  raw_client c(port());
  const auto refused = c.request("POST", "/private", {}, std::string(50'000, 'p'));
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->status, 401);
  const auto next = c.request("GET", "/plaintext");
  ASSERT_TRUE(next);
  EXPECT_EQ(next->body, "Hello, World!");
  const auto allowed = c.request("POST", "/private", "Authorization: Bearer yes\r\n", "abc");
  ASSERT_TRUE(allowed);
  EXPECT_EQ(allowed->body, expected("abc"));
  EXPECT_EQ(seen_->pieces.load(), 1u);  // none of the refused body was read into the handler
}

TEST_F(CoroBody, ARefusalOfAHugeBodyClosesAfterTheAnswer) {
  start();
  raw_client c(port());
  ASSERT_TRUE(c.send(post_head("/private", content_length(std::uint64_t{1} << 29)) + std::string(100'000, 'z')));
  const auto r = c.read_response();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 401);
  EXPECT_EQ(r->header("connection"), "close");
  EXPECT_TRUE(c.wait_closed(3s));
}

TEST_F(CoroBody, AnAnswerAfterThePieceItNeededDiscardsTheRest) {
  start();
  raw_client c(port());
  const auto r = c.request("POST", "/first", {}, std::string(100'000, 'f'));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 413);
  EXPECT_EQ(r->body.rfind("first ", 0), 0u) << r->body;
  const auto next = c.request("GET", "/plaintext");
  ASSERT_TRUE(next);
  EXPECT_EQ(next->body, "Hello, World!");
  ASSERT_TRUE(eventually([this] { return seen_->guards_destroyed.load() == 1; }));
}

TEST_F(CoroBody, OnARouteThatBuffersTheBodyComesInOnePiece) {
  start();
  raw_client c(port());
  const auto r = c.request("POST", "/buffered", {}, "whole already");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->body, expected("whole already"));
  EXPECT_EQ(seen_->pieces.load(), 1u);
  const auto empty = c.request("POST", "/buffered", {}, "");
  ASSERT_TRUE(empty);
  EXPECT_EQ(empty->body, "0 0");
}

TEST_F(CoroBody, AskingForTheBodyAfterSuspendingIsA500) {
  start();
  raw_client c(port());
  const auto r = c.request("POST", "/late", {}, "abc");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 500);
}

TEST_F(CoroBody, PipelinedRequestsBehindAStreamedBodyStayInOrder) {
  start();
  const std::string body = patterned(200'000);
  raw_client c(port());
  ASSERT_TRUE(c.send(post_head("/sleepy", content_length(body.size())) + body +
                     "GET /plaintext HTTP/1.1\r\nHost: x\r\n\r\n" + post_head("/sum", content_length(3)) + "xyz"));
  const auto first = c.read_response();
  const auto second = c.read_response();
  const auto third = c.read_response();
  ASSERT_TRUE(first && second && third);
  EXPECT_EQ(first->body, expected(body));
  EXPECT_EQ(second->body, "Hello, World!");
  EXPECT_EQ(third->body, expected("xyz"));
}

// Found by fuzzing (server_fuzz): an HTTP/1.0 request without keep-alive to a
// streamed-body coroutine route was answered with Connection: close, and then
// the bytes behind it were parsed as another request and answered too (a 501
// for "28"): a response after the one that said it was the last.
TEST_F(CoroBody, NothingIsAnsweredAfterAResponseThatClosesTheConnection) {
  start();
  raw_client c(port());
  ASSERT_TRUE(c.send("POST /sum HTTP/1.0\r\nHost: x\r\n\r\n28\r\nxxxxxxxxx\n"));
  const std::string all = c.read_until_close();
  std::size_t used = 0;
  const auto first = stet::test::parse_response(all, &used);
  ASSERT_TRUE(first) << all;
  EXPECT_EQ(first->body, "0 0");
  EXPECT_EQ(all.substr(used), "") << "bytes after the last response";
}

TEST_F(CoroBody, ABodyOverTheRouteLimitIs413AndTheHandlerSeesWhy) {
  start();
  raw_client c(port());
  ASSERT_TRUE(c.send(post_head("/small", "Transfer-Encoding: chunked\r\n") + "10000\r\n" + std::string(0x10000, 'a') +
                     "\r\n10000\r\n" + std::string(0x10000, 'a') + "\r\n0\r\n\r\n"));
  const auto r = c.read_response();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 413);
  ASSERT_TRUE(eventually([this] { return seen_->errors_seen.load() == 1; }));
  EXPECT_EQ(seen_->error(), stet::make_error_code(stet::error::body_too_large));
  EXPECT_EQ(seen_->finished.load(), 0);
}

TEST_F(CoroBody, AClientGoneWhileTheHandlerWaitsForAPieceEndsItsBody) {
  start();
  {
    raw_client c(port());
    ASSERT_TRUE(c.send(post_head("/sum", content_length(1'000'000)) + std::string(300'000, 'g')));
    ASSERT_TRUE(eventually([this] { return seen_->pieces.load() > 0; }));
    ASSERT_TRUE(c.quiet_for(20ms));  // all of it read: the handler waits in next()
  }
  ASSERT_TRUE(eventually([this] { return seen_->guards_destroyed.load() == 1; }));
  EXPECT_EQ(seen_->errors_seen.load(), 1);
  EXPECT_EQ(seen_->error(), std::make_error_code(std::errc::connection_aborted));
  EXPECT_EQ(seen_->finished.load(), 0);
  stet::test::expect_still_serving(port());
}

// Paused while the offload runs, the connection learns of the departure once
// the handler asks for more; the handler then sees it.
TEST_F(CoroBody, AClientGoneDuringAnOffloadBetweenPiecesEndsItsBody) {
  start();
  {
    raw_client c(port());
    ASSERT_TRUE(c.send(post_head("/gated", content_length(1'000'000)) + std::string(100'000, 'o')));
    ASSERT_TRUE(eventually([this] { return seen_->pool_gate.entered() == 1; }));
  }
  std::this_thread::sleep_for(20ms);
  EXPECT_EQ(seen_->guards_destroyed.load(), 0);
  seen_->pool_gate.open();
  ASSERT_TRUE(eventually([this] { return seen_->guards_destroyed.load() == 1; }));
  EXPECT_EQ(seen_->errors_seen.load(), 1);
  EXPECT_EQ(seen_->error(), std::make_error_code(std::errc::connection_aborted));
  stet::test::expect_still_serving(port());
}

// Waiting for a piece the client does not send is the body timeout's (408);
// the handler sees it.
TEST_F(CoroBody, ABodyThatStallsWhileTheHandlerWaitsIs408) {
  stet::server_options o = options();
  o.body_timeout = 200ms;
  start(o);
  raw_client c(port());
  ASSERT_TRUE(c.send(post_head("/sum", content_length(1000)) + "only this"));
  stet::test::expect_error_then_close(c, 408, 5s);
  ASSERT_TRUE(eventually([this] { return seen_->errors_seen.load() == 1; }));
  EXPECT_EQ(seen_->error(), stet::make_error_code(stet::error::body_timeout));
  ASSERT_TRUE(eventually([this] { return seen_->guards_destroyed.load() == 1; }));
}

// Holding a piece longer than handler_timeout: 503, and the handler (asleep)
// is cancelled, not resumed.
TEST_F(CoroBody, HandlerTimeoutWhileHoldingAPieceIs503AndCancels) {
  stet::server_options o = options();
  o.handler_timeout = 100ms;
  start(o);
  raw_client c(port());
  ASSERT_TRUE(c.send(post_head("/sleep-long", content_length(1000)) + "a piece"));
  stet::test::expect_error_then_close(c, 503, 5s);
  ASSERT_TRUE(eventually([this] { return seen_->guards_destroyed.load() == 1; }));
  EXPECT_EQ(seen_->finished.load(), 0);
  EXPECT_EQ(seen_->errors_seen.load(), 0);
}

// The handler, cancelled while its offload runs, goes when the function
// returns; its request stays until then (the guard reads it).
TEST_F(CoroBody, HandlerTimeoutDuringAnOffloadBetweenPiecesKeepsTheRequestForTheFrame) {
  stet::server_options o = options();
  o.handler_timeout = 100ms;
  start(o);
  raw_client c(port());
  ASSERT_TRUE(c.send(post_head("/gated", content_length(1000)) + "a piece"));
  stet::test::expect_error_then_close(c, 503, 5s);
  EXPECT_EQ(seen_->guards_destroyed.load(), 0);  // the function still runs
  churn(port());
  seen_->pool_gate.open();
  ASSERT_TRUE(eventually([this] { return seen_->guards_destroyed.load() == 1; }));
  EXPECT_EQ(seen_->guards_without_request.load(), 0);
  EXPECT_EQ(seen_->finished.load(), 0);
  stet::test::expect_still_serving(port());
}

TEST_F(CoroBody, AClientGoneBeforeTheFirstPieceDuringAnOffloadKeepsTheRequestForTheFrame) {
  start();
  {
    raw_client c(port());
    ASSERT_TRUE(c.send(post_head("/vetted", content_length(1000))));
    ASSERT_TRUE(eventually([this] { return seen_->pool_gate.entered() == 1; }));
  }
  std::this_thread::sleep_for(20ms);  // time to notice; the frame must wait for the function anyway
  EXPECT_EQ(seen_->guards_destroyed.load(), 0);
  churn(port());
  seen_->pool_gate.open();
  ASSERT_TRUE(eventually([this] { return seen_->guards_destroyed.load() == 1; }));
  EXPECT_EQ(seen_->guards_without_request.load(), 0);
  EXPECT_EQ(seen_->errors_seen.load(), 0);  // cancelled, not resumed
  stet::test::expect_still_serving(port());
}

TEST_F(CoroBody, AnOffloadBeforeTheFirstPieceHoldsTheBodyBack) {
  start();
  raw_client c(port());
  ASSERT_TRUE(c.send(post_head("/vetted", content_length(5000)) + std::string(5000, 'v')));
  ASSERT_TRUE(eventually([this] { return seen_->pool_gate.entered() == 1; }));
  seen_->pool_gate.open();
  const auto r = c.read_response();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->body, "5000");
}

TEST_F(CoroBody, StopWithHandlersWaitingForOrHoldingPiecesEndsThem) {
  stet::server_options o = options();
  o.drain_timeout = 100ms;
  start(o);
  raw_client waiting(port());
  raw_client holding(port());
  ASSERT_TRUE(waiting.send(post_head("/sum", content_length(1'000'000)) + std::string(1000, 'w')));
  ASSERT_TRUE(holding.send(post_head("/sleep-long", content_length(1'000'000)) + std::string(1000, 'h')));
  ASSERT_TRUE(eventually([this] { return seen_->pieces.load() == 2; }));
  server_.reset();
  EXPECT_EQ(seen_->guards_destroyed.load(), 2);
  EXPECT_EQ(seen_->errors_seen.load(), 1);  // the waiting one; the sleeping one is cancelled
  EXPECT_EQ(seen_->error(), std::make_error_code(std::errc::connection_aborted));
  EXPECT_EQ(seen_->finished.load(), 0);
}

// No allocation per piece: a body eight times longer (eight times the
// pieces) costs the process no more allocations, whether the handler takes
// each piece at once or holds it across a sleep_for or an offload.
TEST_F(CoroBody, AllocationsDoNotGrowWithThePieces) {
  start();
  const std::string small = patterned(1 << 20);
  const std::string large = patterned(8 << 20);
  raw_client c(port());
  const auto allocations = [&](const char* target, const std::string& body) {
    const std::uint64_t before = stet::test::total_allocations();
    const auto r = c.request("POST", target, {}, body);
    const std::uint64_t spent = stet::test::total_allocations() - before;
    EXPECT_TRUE(r && r->body == expected(body)) << target;
    return spent;
  };
  for (const char* target : {"/sum", "/sleepy", "/offload"}) {
    for (int warm = 0; warm < 3; ++warm) (void)allocations(target, large);
    const std::uint64_t pieces_before = seen_->pieces.load();
    const std::uint64_t for_small = allocations(target, small);
    const std::uint64_t for_large = allocations(target, large);
    const std::uint64_t large_pieces = seen_->pieces.load() - pieces_before;
    std::printf("%s: %llu allocations for 1 MiB, %llu for 8 MiB (%llu pieces in all)\n", target,
                static_cast<unsigned long long>(for_small), static_cast<unsigned long long>(for_large),
                static_cast<unsigned long long>(large_pieces));
    EXPECT_LE(for_large, for_small + 2) << target;
  }
}

TEST(CoroBodyInProcess, RouterHandleFeedsTheWholeBody) {
  const auto seen = std::make_shared<observed>();
  const stet::router r = body_routes(seen);
  stet::test_request req(stet::method::post, "/sleepy");
  req.body("in process");
  const response answer = r.handle(req.get());
  EXPECT_EQ(answer.status(), stet::status::ok);
  EXPECT_EQ(answer.body(), expected("in process"));
}

}  // namespace
