// Asynchronous handlers over real sockets: answers from other threads, kept in
// order behind pipelined requests, HEAD, the handler timeout (503), a dropped
// responder (500), and a graceful stop while an answer is awaited.
#include <stet/stet.hpp>

#include "support/http_client.hpp"
#include "support/test_server.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace {

using namespace std::chrono_literals;
using stet::request;
using stet::responder;
using stet::response;
using stet::test::raw_client;
using stet::test::running_server;

// Answering threads, joined when the test ends (after the server stopped).
class answer_threads {
 public:
  ~answer_threads() { join(); }
  template <class F>
  void start(F&& f) {
    const std::lock_guard lock(mutex_);
    threads_.emplace_back(std::forward<F>(f));
  }
  void join() {
    std::vector<std::thread> all;
    {
      const std::lock_guard lock(mutex_);
      all.swap(threads_);
    }
    for (std::thread& t : all) t.join();
  }

 private:
  std::mutex mutex_;
  std::vector<std::thread> threads_;
};

// Responders a handler kept without answering, for the test to use later.
struct kept_responders {
  std::mutex mutex;
  std::vector<responder> items;
  void keep(responder r) {
    const std::lock_guard lock(mutex);
    items.push_back(std::move(r));
  }
  std::size_t size() {
    const std::lock_guard lock(mutex);
    return items.size();
  }
  /// Waits (bounded) until a handler kept one.
  bool wait_for_one() {
    for (int i = 0; i < 1000; ++i) {
      if (size() != 0) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    return false;
  }
  std::optional<responder> take() {
    const std::lock_guard lock(mutex);
    if (items.empty()) return std::nullopt;
    responder r = std::move(items.back());
    items.pop_back();
    return r;
  }
};

// Routes: /later/{ms:uint} answers from another thread after ms, echoing a
// header and the body (read there, so the request must still be intact);
// /now answers synchronously; /never keeps its responder; /drop drops it.
stet::router async_routes(answer_threads& threads, kept_responders& kept) {
  stet::router r;
  r.add(stet::method::get, "/later/{ms:uint}", [&threads](request& req, responder out, std::uint64_t ms) {
    threads.start([&req, ms, out = std::move(out)]() mutable {
      std::this_thread::sleep_for(std::chrono::milliseconds(ms));
      const std::string text =
          "later " + std::string(req.header("x-tag").value_or("-")) + " " + std::string(req.body());
      out.send(response::text(text));
    });
  });
  r.add(stet::method::post, "/later/{ms:uint}", [&threads](request& req, responder out, std::uint64_t ms) {
    threads.start([&req, ms, out = std::move(out)]() mutable {
      std::this_thread::sleep_for(std::chrono::milliseconds(ms));
      out.send(response::text("posted " + std::string(req.body())));
    });
  });
  r.get("/now", [](request&) { return response::text("now"); });
  r.get("/never", [&kept](request&, responder out) { kept.keep(std::move(out)); });
  r.get("/drop", [](request&, responder) {});
  return r;
}

class AsyncHandler : public ::testing::Test {
 protected:
  void start(stet::server_options options = stet::test::test_options()) {
    server_.emplace(async_routes(threads_, kept_), std::move(options));
  }
  std::uint16_t port() { return server_->port(); }

  answer_threads threads_;  // declared first: joined after the server is gone
  kept_responders kept_;
  std::optional<running_server> server_;
};

TEST_F(AsyncHandler, AnswersFromAnotherThread) {
  start();
  raw_client c(port());
  const auto got = c.request("GET", "/later/20", "X-Tag: a\r\n");
  ASSERT_TRUE(got);
  EXPECT_EQ(got->status, 200);
  EXPECT_EQ(got->body, "later a ");
}

TEST_F(AsyncHandler, KeepAliveConnectionServesManyAsyncRequests) {
  start();
  raw_client c(port());
  for (int i = 0; i < 200; ++i) {
    const auto got = c.request("POST", "/later/0", {}, std::to_string(i));
    ASSERT_TRUE(got) << i;
    EXPECT_EQ(got->body, "posted " + std::to_string(i));
  }
}

TEST_F(AsyncHandler, PipelinedAnswersStayInOrder) {
  start();
  raw_client c(port());
  ASSERT_TRUE(
      c.send("GET /later/60 HTTP/1.1\r\nHost: x\r\nX-Tag: first\r\n\r\n"
             "GET /now HTTP/1.1\r\nHost: x\r\n\r\n"
             "POST /later/0 HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nthird"
             "GET /later/30 HTTP/1.1\r\nHost: x\r\nX-Tag: fourth\r\n\r\n"));
  const std::vector<std::string> expected{"later first ", "now", "posted third", "later fourth "};
  for (const std::string& body : expected) {
    const auto got = c.read_response();
    ASSERT_TRUE(got) << body;
    EXPECT_EQ(got->body, body);
  }
}

TEST_F(AsyncHandler, HeadKeepsTheLengthAndDropsTheBody) {
  start();
  raw_client c(port());
  ASSERT_TRUE(c.send("HEAD /later/10 HTTP/1.1\r\nHost: x\r\nX-Tag: h\r\n\r\n"));
  const auto got = c.read_response(/*head_only=*/true);
  ASSERT_TRUE(got);
  EXPECT_EQ(got->header("Content-Length"), std::to_string(std::string("later h ").size()));
  EXPECT_TRUE(c.quiet_for(100ms));  // no body bytes follow
  EXPECT_EQ(c.request("GET", "/now")->body, "now");
}

TEST_F(AsyncHandler, UnansweredRequestTimesOutWith503AndLateSendIsRefused) {
  stet::server_options options = stet::test::test_options();
  options.handler_timeout = 300ms;
  start(options);
  raw_client c(port());
  ASSERT_TRUE(c.send("GET /never HTTP/1.1\r\nHost: x\r\n\r\nGET /now HTTP/1.1\r\nHost: x\r\n\r\n"));
  const auto got = c.read_response(false, 5s);
  ASSERT_TRUE(got);
  EXPECT_EQ(got->status, 503);
  EXPECT_EQ(got->header("Connection"), "close");
  EXPECT_TRUE(c.wait_closed());  // the pipelined /now is not answered on this connection

  std::optional<responder> late = kept_.take();
  ASSERT_TRUE(late);
  EXPECT_TRUE(late->abandoned());
  EXPECT_FALSE(late->send(response::text("too late")));

  raw_client fresh(port());
  EXPECT_EQ(fresh.request("GET", "/now")->body, "now");
}

TEST_F(AsyncHandler, DroppedResponderIs500AndTheConnectionGoesOn) {
  start();
  raw_client c(port());
  const auto dropped = c.request("GET", "/drop");
  ASSERT_TRUE(dropped);
  EXPECT_EQ(dropped->status, 500);
  EXPECT_EQ(c.request("GET", "/now")->body, "now");
}

TEST_F(AsyncHandler, ClientGoneWhileAwaitingThenLateSend) {
  start();
  {
    raw_client c(port());
    ASSERT_TRUE(c.send("GET /never HTTP/1.1\r\nHost: x\r\n\r\n"));
    ASSERT_TRUE(kept_.wait_for_one());
  }
  std::optional<responder> late = kept_.take();
  ASSERT_TRUE(late);
  late->send(response::text("nobody reads this"));  // must neither crash nor leak
  raw_client fresh(port());
  EXPECT_EQ(fresh.request("GET", "/now")->body, "now");
}

TEST_F(AsyncHandler, StopWaitsForTheAwaitedAnswer) {
  start();
  raw_client c(port());
  ASSERT_TRUE(c.send("GET /later/300 HTTP/1.1\r\nHost: x\r\nX-Tag: s\r\n\r\n"));
  std::this_thread::sleep_for(50ms);  // the handler is running
  server_->get().stop();
  const auto got = c.read_response();
  ASSERT_TRUE(got);
  EXPECT_EQ(got->status, 200);
  EXPECT_EQ(got->body, "later s ");
  EXPECT_EQ(got->header("Connection"), "close");
  server_.reset();
}

TEST_F(AsyncHandler, StopCutsAnUnansweredRequestAtTheDrainDeadline) {
  stet::server_options options = stet::test::test_options();
  options.drain_timeout = 200ms;
  start(options);
  raw_client c(port());
  ASSERT_TRUE(c.send("GET /never HTTP/1.1\r\nHost: x\r\n\r\n"));
  ASSERT_TRUE(kept_.wait_for_one());
  server_.reset();  // stop + wait: returns once the drain deadline cut the connection
  EXPECT_TRUE(c.wait_closed());
  std::optional<responder> late = kept_.take();
  ASSERT_TRUE(late);
  EXPECT_TRUE(late->abandoned());
  EXPECT_FALSE(late->send(response::text("server is gone")));  // the connection's memory is freed only now
}

}  // namespace
