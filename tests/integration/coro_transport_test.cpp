// Coroutine handlers beside main's other paths: a streamed-body route whose
// handler is a coroutine (read_body() before its first co_await streams the
// body; an answer after suspending is an early answer; read_body() after
// suspending is refused with a 500), and a suspended handler over HTTPS that
// is cancelled when its client disconnects, as over plain TCP.
#include <stet/stet.hpp>

#include "support/expectations.hpp"
#include "support/http_client.hpp"
#include "support/test_server.hpp"
#include "support/tls_client.hpp"
#include "support/tls_server.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace {

using namespace std::chrono_literals;
using stet::request;
using stet::response;
using stet::task;
using stet::test::raw_client;
using stet::test::running_server;

// Bounded, so a broken server fails the test instead of hanging it; roomy
// enough for the sanitizer builds.
bool eventually(const std::function<bool()>& done) { return stet::test::eventually(done, 5s); }

// Counts the body's bytes; answers with the count.
class counting_sink final : public stet::body_sink {
 public:
  stet::body_flow on_data(std::string_view piece) override {
    bytes_ += piece.size();
    return stet::body_flow::more;
  }
  response on_end() override { return response::text(std::to_string(bytes_)); }
  void on_abort(std::error_code /*why*/) noexcept override {}

 private:
  std::uint64_t bytes_ = 0;
};

struct seen_errors {
  std::mutex mutex;
  std::vector<std::string> texts;
};

stet::router body_routes(const std::shared_ptr<seen_errors>& errors) {
  stet::router r;
  r.on_error([errors](std::string_view what) {
    const std::lock_guard lock(errors->mutex);
    errors->texts.emplace_back(what);
  });
  stet::route_options streamed;
  streamed.stream_body = true;
  streamed.max_body_bytes = 1 << 20;
  // Decides on the head without suspending: the body streams to the sink.
  r.put("/count", streamed,
        [](request&) -> task<response> { co_return stet::read_body(std::make_unique<counting_sink>()); });
  // Suspends, then answers: an early answer (the body is discarded).
  r.put("/refuse", streamed, [](request&) -> task<response> {
    co_await stet::sleep_for(1ms);
    co_return response::text("no", stet::status::forbidden);
  });
  // Suspends, then asks for the body: too late, a 500.
  r.put("/late", streamed, [](request&) -> task<response> {
    co_await stet::sleep_for(1ms);
    co_return stet::read_body(std::make_unique<counting_sink>());
  });
  r.get("/plaintext", [](request&) { return response::text("Hello, World!"); });
  return r;
}

std::string put(std::string_view target, std::size_t bytes) {
  return "PUT " + std::string(target) + " HTTP/1.1\r\nHost: test\r\nContent-Length: " + std::to_string(bytes) +
         "\r\n\r\n" + std::string(bytes, 'b');
}

TEST(CoroStreamedBody, ReadBodyBeforeSuspendingStreamsTheBody) {
  running_server s(body_routes(std::make_shared<seen_errors>()));
  raw_client c(s.port());
  ASSERT_TRUE(c.send(put("/count", 200'000)));
  const auto r = c.read_response();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, "200000");
  const auto next = c.request("GET", "/plaintext");  // the connection goes on
  ASSERT_TRUE(next);
  EXPECT_EQ(next->body, "Hello, World!");
}

TEST(CoroStreamedBody, AnswerAfterSuspendingIsAnEarlyAnswer) {
  running_server s(body_routes(std::make_shared<seen_errors>()));
  raw_client c(s.port());
  ASSERT_TRUE(c.send(put("/refuse", 1000)));
  const auto r = c.read_response();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 403);
  EXPECT_EQ(r->body, "no");
  const auto next = c.request("GET", "/plaintext");  // the small body was discarded, the connection kept
  ASSERT_TRUE(next);
  EXPECT_EQ(next->body, "Hello, World!");
}

TEST(CoroStreamedBody, ReadBodyAfterSuspendingIsA500) {
  auto errors = std::make_shared<seen_errors>();
  running_server s(body_routes(errors));
  raw_client c(s.port());
  ASSERT_TRUE(c.send(put("/late", 1000)));
  const auto r = c.read_response();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 500);
  const std::lock_guard lock(errors->mutex);
  ASSERT_EQ(errors->texts.size(), 1u);
  EXPECT_NE(errors->texts[0].find("read_body() after suspending"), std::string::npos) << errors->texts[0];
}

TEST(CoroStreamedBody, InProcessReadBodyAfterSuspendingIsA500Too) {
  const stet::router r = body_routes(std::make_shared<seen_errors>());
  stet::test_request req(stet::method::put, "/late");
  req.body("abc");
  EXPECT_EQ(r.handle(req.get()).status(), stet::status::internal_server_error);
}

// Over HTTPS the connection watches the raw socket while the handler sleeps:
// a client that goes away cancels the handler long before handler_timeout.
TEST(CoroTls, DisconnectWhileSuspendedDestroysTheFrame) {
  stet::test::tls_fixture certs;
  const stet::test::cert_files site = certs.issue("site");
  auto entered = std::make_shared<std::atomic<int>>(0);
  auto destroyed = std::make_shared<std::atomic<int>>(0);
  struct frame_guard {
    std::shared_ptr<std::atomic<int>> count;
    ~frame_guard() { count->fetch_add(1); }
  };
  stet::router r;
  r.get("/sleep", [entered, destroyed](request&) -> task<response> {
    const frame_guard guard{destroyed};
    entered->fetch_add(1);
    co_await stet::sleep_for(60s);
    co_return response::text("slept");
  });
  stet::server_options o = stet::test::tls_server_options(stet::test::tls_settings(site));
  o.handler_timeout = 60s;
  running_server s(std::move(r), o);
  {
    stet::test::tls_client c(s.get().port(1));
    ASSERT_TRUE(c.handshake()) << c.error();
    ASSERT_TRUE(c.send("GET /sleep HTTP/1.1\r\nHost: localhost\r\n\r\n"));
    ASSERT_TRUE(eventually([&] { return entered->load() == 1; }));
    EXPECT_EQ(destroyed->load(), 0);
  }  // closed without close_notify
  EXPECT_TRUE(eventually([&] { return destroyed->load() == 1; }));
}

}  // namespace
