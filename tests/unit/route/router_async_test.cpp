// Asynchronous handlers in-process: router::handle() waits for the responder,
// middleware after-hooks run on the late answer, failures become 500s.
#include <stet/router.hpp>

#include <stet/test_request.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace {

using namespace stet::literals;
using stet::method;
using stet::request;
using stet::responder;
using stet::response;
using stet::router;
using stet::status;

// The handler forms route_handler accepts, and two it must refuse.
static_assert(stet::route_handler<void (*)(request&, responder)>);
static_assert(stet::route_handler<void (*)(request&, responder&&)>);
static_assert(stet::route_handler<void (*)(request&, responder, std::int64_t)>);
static_assert(!stet::route_handler<response (*)(request&, responder)>);            // answers twice: refused
static_assert(!stet::route_handler<void (*)(request&, std::int64_t, responder)>);  // responder comes first

// Joins every answering thread it started, so no test leaks one.
class answer_threads {
 public:
  ~answer_threads() {
    for (std::thread& t : threads_) t.join();
  }
  template <class F>
  void start(F&& f) {
    threads_.emplace_back(std::forward<F>(f));
  }

 private:
  std::vector<std::thread> threads_;
};

TEST(RouterAsync, AnswerSentBeforeReturningIsUsedAtOnce) {
  router r;
  r.get("/now", [](request&, responder out) { out.send(response::text("now")); });
  const response got = r.handle(stet::test_request(method::get, "/now"));
  EXPECT_EQ(got.status(), status::ok);
  EXPECT_EQ(got.body(), "now");
}

TEST(RouterAsync, HandleWaitsForAnAnswerFromAnotherThread) {
  answer_threads threads;
  router r;
  r.get("/later", [&threads](request& req, responder out) {
    threads.start([&req, out = std::move(out)]() mutable {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      // The request is still intact: nothing reuses it before send().
      out.send(response::text(std::string("late ") + std::string(req.header("x-id").value_or("?"))));
    });
  });
  stet::test_request req(method::get, "/later");
  req.header("X-Id", "7");
  const response got = r.handle(req);
  EXPECT_EQ(got.body(), "late 7");
}

TEST(RouterAsync, TypedParametersFollowTheResponder) {
  router r;
  r.get("/users/{id:int}/{slug}"_route, [](request&, responder out, std::int64_t id, std::string_view slug) {
    out.send(response::text(std::to_string(id) + ":" + std::string(slug)));
  });
  EXPECT_EQ(r.handle(stet::test_request(method::get, "/users/42/a%20b")).body(), "42:a b");
  EXPECT_EQ(r.handle(stet::test_request(method::get, "/users/x/a")).status(), status::not_found);
}

TEST(RouterAsync, AfterHooksRunOnTheLateAnswerInnermostFirst) {
  answer_threads threads;
  std::vector<std::string> trace;
  router r;
  r.before([&trace](request&) -> std::optional<response> {
    trace.push_back("outer.before");
    return std::nullopt;
  });
  r.after([&trace](request&, response& res) {
    trace.push_back("outer.after");
    res.add_header("X-Outer", res.header("X-Inner").value_or("missing"));
  });
  auto api = r.group("/api");
  api.after([&trace](request&, response& res) {
    trace.push_back("inner.after");
    res.add_header("X-Inner", "yes");
  });
  api.get("/x", [&threads, &trace](request&, responder out) {
    trace.push_back("handler");
    threads.start([out = std::move(out)]() mutable { out.send(response::text("x")); });
  });
  const response got = r.handle(stet::test_request(method::get, "/api/x"));
  EXPECT_EQ(got.header("X-Outer"), "yes");
  EXPECT_EQ(trace, (std::vector<std::string>{"outer.before", "handler", "inner.after", "outer.after"}));
}

TEST(RouterAsync, DroppedResponderAnswers500AndIsReported) {
  std::vector<std::string> reported;
  router r;
  r.on_error([&reported](std::string_view what) { reported.emplace_back(what); });
  r.get("/drop", [](request&, responder) {});
  const response got = r.handle(stet::test_request(method::get, "/drop"));
  EXPECT_EQ(got.status(), status::internal_server_error);
  ASSERT_EQ(reported.size(), 1u);
  EXPECT_NE(reported[0].find("dropped its responder"), std::string::npos);
}

TEST(RouterAsync, OnlyTheFirstSendCounts) {
  std::atomic<int> second_taken{-1};
  router r;
  r.get("/twice", [&second_taken](request&, responder out) {
    responder moved = std::move(out);
    EXPECT_TRUE(moved.send(response::text("first")));
    second_taken = moved.send(response::text("second")) ? 1 : 0;  // a spent responder refuses
    EXPECT_TRUE(moved.abandoned());
  });
  EXPECT_EQ(r.handle(stet::test_request(method::get, "/twice")).body(), "first");
  EXPECT_EQ(second_taken.load(), 0);
}

TEST(RouterAsync, ThrowingAfterHookOnALateAnswerIs500) {
  answer_threads threads;
  std::vector<std::string> reported;
  router r;
  r.on_error([&reported](std::string_view what) { reported.emplace_back(what); });
  r.after([](request&, response&) { throw std::runtime_error("after failed"); });
  r.get("/x", [&threads](request&, responder out) {
    threads.start([out = std::move(out)]() mutable { out.send(response::text("x")); });
  });
  EXPECT_EQ(r.handle(stet::test_request(method::get, "/x")).status(), status::internal_server_error);
  EXPECT_EQ(reported, std::vector<std::string>{"after failed"});
}

TEST(RouterAsync, HandlerThatThrowsBeforeAnsweringIs500Once) {
  std::vector<std::string> reported;
  router r;
  r.on_error([&reported](std::string_view what) { reported.emplace_back(what); });
  r.get("/x", [](request&, responder) { throw std::runtime_error("boom"); });
  EXPECT_EQ(r.handle(stet::test_request(method::get, "/x")).status(), status::internal_server_error);
  EXPECT_EQ(reported, std::vector<std::string>{"boom"});  // the dropped responder is not reported again
}

// The sender makes the answer visible, then wakes the waiting loop. The
// waiting handle() may see the answer first, return, and a new handle() put
// its loop where the old one was: the late wake must not reach either (TSan
// saw it lock the mutex of a loop that had gone).
TEST(RouterAsync, ALateWakeNeverReachesAFinishedHandle) {
  std::mutex mutex;
  std::condition_variable queued;
  std::deque<responder> pending;
  bool done = false;
  std::thread sender([&] {
    std::unique_lock lock(mutex);
    for (;;) {
      queued.wait(lock, [&] { return done || !pending.empty(); });
      if (pending.empty()) return;
      responder out = std::move(pending.front());
      pending.pop_front();
      lock.unlock();
      out.send(response::text("x"));
      lock.lock();
    }
  });
  router r;
  r.get("/q", [&](request&, responder out) {
    {
      const std::lock_guard lock(mutex);
      pending.push_back(std::move(out));
    }
    queued.notify_one();
  });
  for (int i = 0; i < 3000; ++i) ASSERT_EQ(r.handle(stet::test_request(method::get, "/q")).body(), "x");
  {
    const std::lock_guard lock(mutex);
    done = true;
  }
  queued.notify_one();
  sender.join();
}

}  // namespace
