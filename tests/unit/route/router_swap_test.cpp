// Routes added while other threads dispatch: a new table is swapped in, readers
// never lock, and a request finishes on the table it started with. Run under
// -DSTET_SANITIZE=thread (and address) to make the claims checkable.
#include <stet/router.hpp>

#include <stet/test_request.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace {

using stet::method;
using stet::request;
using stet::response;
using stet::router;
using stet::status;

TEST(RouterSwap, AddingRoutesWhileDispatchingIsSafe) {
  router r;
  r.get("/stable/{id:int}", [](request&, std::int64_t id) { return response::text(std::to_string(id)); });
  r.after([](request&, response& out) { out.add_header("X-Layer", "1"); });
  r.freeze();

  constexpr int added = 150;
  std::atomic<bool> done{false};
  std::atomic<int> failures{0};
  std::atomic<long> dispatches{0};
  std::vector<std::thread> readers;
  for (int t = 0; t < 2; ++t) {
    readers.emplace_back([&, t] {
      int seen_new = 0;
      for (long i = 0; !done.load() || seen_new == 0; ++i) {
        stet::test_request q(method::get, "/stable/" + std::to_string(i));
        const response out = r.handle(q);
        if (out.body() != std::to_string(i) || out.header("X-Layer") != "1") ++failures;
        stet::test_request fresh(method::get, "/new/" + std::to_string(i % added) + "/x");
        const response maybe = r.handle(fresh);
        if (maybe.status() == status::ok) {
          ++seen_new;
          if (maybe.body() != "x") ++failures;
        } else if (maybe.status() != status::not_found) {
          ++failures;
        }
        ++dispatches;
        (void)t;
      }
    });
  }
  for (int i = 0; i < added; ++i) {
    r.get("/new/" + std::to_string(i) + "/{v}", {}, [](request&, std::string_view v) { return response::text(v); });
  }
  done = true;
  for (std::thread& t : readers) t.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_GT(dispatches.load(), 0);
  EXPECT_EQ(r.handle(stet::test_request(method::get, "/new/149/y")).body(), "y");
}

TEST(RouterSwap, InFlightRequestsFinishOnTheirTable) {
  router r;
  std::mutex m;
  std::condition_variable cv;
  bool entered = false;
  bool release = false;
  r.get("/slow/{id}", [&](request& q) {
    {
      std::unique_lock lock(m);
      entered = true;
      cv.notify_all();
      cv.wait(lock, [&] { return release; });
    }
    return response::text(*q.param("id"));
  });
  // The after hook runs once the handler returns, reading the table the
  // request started on: freed early, ASan would see it.
  r.after([](request& q, response& out) { out.add_header("X-Pattern", q.params().pattern()); });
  r.freeze();

  std::thread slow([&] {
    const response out = r.handle(stet::test_request(method::get, "/slow/abc"));
    EXPECT_EQ(out.body(), "abc");
    EXPECT_EQ(out.header("X-Pattern"), "/slow/{id}");
  });
  {
    std::unique_lock lock(m);
    cv.wait(lock, [&] { return entered; });
  }
  for (int i = 0; i < 20; ++i) r.get("/more/" + std::to_string(i), [](request&) { return response(); });
  EXPECT_EQ(r.handle(stet::test_request(method::get, "/more/19")).status(), status::ok);
  {
    const std::lock_guard lock(m);
    release = true;
  }
  cv.notify_all();
  slow.join();
}

// The handler's own table stays pinned while it swaps in a new one.
TEST(RouterSwap, AHandlerMayAddRoutes) {
  router r;
  router* self = &r;
  r.get("/register/{n}", [self](request&, std::string_view n) {
    self->get("/registered/" + std::string(n), [](request&) { return response::text("registered"); });
    return response::text(n);
  });
  EXPECT_EQ(r.handle(stet::test_request(method::get, "/register/x")).body(), "x");
  EXPECT_EQ(r.handle(stet::test_request(method::get, "/registered/x")).body(), "registered");
}

}  // namespace
