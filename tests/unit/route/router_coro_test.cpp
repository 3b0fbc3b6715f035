// Coroutine handlers in-process: router::handle() runs the task (and, if it
// suspends, a small loop of its own until it is done). Typed parameters,
// nested tasks, sleep_for, offload (inline here: no pool outside a server),
// futures completed from another thread, middleware and groups, failures.
#include <stet/offload.hpp>
#include <stet/promise.hpp>
#include <stet/router.hpp>
#include <stet/sleep.hpp>
#include <stet/task.hpp>

#include <stet/test_request.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>

namespace {

using namespace std::chrono_literals;
using namespace stet::literals;
using stet::method;
using stet::request;
using stet::response;
using stet::router;
using stet::status;
using stet::task;

// The coroutine handler forms route_handler accepts, and some it refuses.
static_assert(stet::route_handler<task<response> (*)(request&)>);
static_assert(stet::route_handler<task<response> (*)(request&, std::int64_t)>);
static_assert(stet::route_handler<task<response> (*)(request&, std::string_view, std::uint64_t)>);
static_assert(!stet::route_handler<task<int> (*)(request&)>);                        // not an answer
static_assert(!stet::route_handler<task<response> (*)(request&, std::string)>);      // not a parameter type
static_assert(!stet::route_handler<task<response> (*)(request&, stet::responder)>);  // one way to answer

response call(const router& r, std::string_view target) { return r.handle(stet::test_request(method::get, target)); }

task<int> twice(int v) { co_return 2 * v; }

task<int> throws_later() {
  co_await stet::sleep_for(0ms);
  throw std::runtime_error("later");
}

TEST(RouterCoro, HandlerThatNeverSuspendsAnswersAtOnce) {
  router r;
  r.get("/now", [](request&) -> task<response> { co_return response::text("now"); });
  const response got = call(r, "/now");
  EXPECT_EQ(got.status(), status::ok);
  EXPECT_EQ(got.body(), "now");
}

TEST(RouterCoro, TypedParametersAreConvertedAsForPlainHandlers) {
  router r;
  r.get("/users/{id:int}/{slug}", [](request&, std::int64_t id, std::string_view slug) -> task<response> {
    co_return response::text(std::to_string(id + 1) + ":" + std::string(slug));
  });
  EXPECT_EQ(call(r, "/users/41/ann").body(), "42:ann");
  EXPECT_EQ(call(r, "/users/x/ann").status(), status::not_found);
}

TEST(RouterCoro, CompileTimePatternsCheckACoroutineHandlersParameters) {
  router r;
  r.get("/n/{id:uint}"_route,
        [](request&, std::uint64_t id) -> task<response> { co_return response::text(std::to_string(id)); });
  EXPECT_EQ(call(r, "/n/7").body(), "7");
  using by_id = task<response> (*)(request&, std::int64_t);
  constexpr auto id_pattern = decltype("/x/{id:int}"_route)::shape;
  constexpr auto uint_pattern = decltype("/x/{id:uint}"_route)::shape;
  static_assert(stet::detail::handler_fits(stet::detail::handler_arg_kinds<by_id>(), false, id_pattern));
  static_assert(!stet::detail::handler_fits(stet::detail::handler_arg_kinds<by_id>(), false, uint_pattern));
}

TEST(RouterCoro, NestedTasksAndSleepResumeOnTheHandlingThread) {
  router r;
  r.get("/sum", [](request&) -> task<response> {
    const std::thread::id before = std::this_thread::get_id();
    const int a = co_await twice(10);
    co_await stet::sleep_for(5ms);
    const int b = co_await twice(a);
    co_return response::text(std::to_string(b) + (std::this_thread::get_id() == before ? " same" : " other"));
  });
  EXPECT_EQ(call(r, "/sum").body(), "40 same");
}

TEST(RouterCoro, OffloadRunsInlineOutsideAServer) {
  router r;
  r.get("/off", [](request& req) -> task<response> {
    const std::string path(req.path());
    // The string goes as an argument: a lambda capturing it inside the
    // co_await is destroyed twice by GCC 12 (and refused there).
    const std::size_t n = co_await stet::offload([](const std::string& p) { return p.size(); }, path);
    co_await stet::offload([] {});  // void functions too
    co_return response::text(std::to_string(n));
  });
  EXPECT_EQ(call(r, "/off").body(), "4");
}

// offload(fn, args...) copies its arguments once, outside the co_await
// expression, and releases them once (GCC 12 destroys a capturing lambda
// temporary written inside it twice: the use count would drop below 2).
TEST(RouterCoro, OffloadArgumentsAreCopiedAndReleasedOnce) {
  auto counted = std::make_shared<int>(7);
  router r;
  r.get("/n", [counted](request&) -> task<response> {
    const int n = co_await stet::offload([](const std::shared_ptr<int>& p) { return *p; }, counted);
    co_return response::text(std::to_string(n));
  });
  for (int i = 0; i < 3; ++i) EXPECT_EQ(call(r, "/n").body(), "7");
  EXPECT_EQ(counted.use_count(), 2);  // this one and the route's capture
}

// Where GCC 12 would destroy it twice, a temporary lambda with a capture that
// has a destructor is refused; an lvalue (copied) or a trivial capture is not.
TEST(RouterCoro, OffloadRefusesTemporariesGcc12WouldDestroyTwice) {
  const auto holds_string = [s = std::string("x")] { return s.size(); };
  const auto holds_int = [n = 1] { return n; };
  static_assert(stet::detail::offload_operand_safe<decltype(holds_string)&>);
  static_assert(stet::detail::offload_operand_safe<decltype(holds_int)&&>);
  static_assert(stet::detail::offload_operand_safe<decltype(holds_string)&&> ==
                !stet::detail::co_await_temporaries_destroyed_twice);
  EXPECT_EQ(holds_string() + static_cast<std::size_t>(holds_int()), 2u);
}

TEST(RouterCoro, ExceptionsAre500AndTheRouterGoesOn) {
  router r;
  std::string reported;
  r.on_error([&reported](std::string_view what) { reported = what; });
  r.get("/early", [](request&) -> task<response> {
    throw std::runtime_error("early");
    co_return response::text("never");
  });
  r.get("/late", [](request&) -> task<response> { co_return response::text(std::to_string(co_await throws_later())); });
  r.get("/offloaded", [](request&) -> task<response> {
    co_await stet::offload([]() -> int { throw std::runtime_error("in the pool"); });
    co_return response::text("never");
  });
  r.get("/caught", [](request&) -> task<response> {
    try {
      co_await throws_later();
    } catch (const std::runtime_error& e) {
      co_return response::text(std::string("caught ") + e.what());
    }
    co_return response::text("never");
  });
  EXPECT_EQ(call(r, "/early").status(), status::internal_server_error);
  EXPECT_NE(reported.find("early"), std::string::npos);
  EXPECT_EQ(call(r, "/late").status(), status::internal_server_error);
  EXPECT_NE(reported.find("later"), std::string::npos);
  EXPECT_EQ(call(r, "/offloaded").status(), status::internal_server_error);
  EXPECT_NE(reported.find("in the pool"), std::string::npos);
  EXPECT_EQ(call(r, "/caught").body(), "caught later");
}

TEST(RouterCoro, MiddlewareAndGroupsWrapCoroutineHandlers) {
  router r;
  r.before([](request& req) -> std::optional<response> {
    if (req.header("x-deny")) return std::move(response::text("denied").set_status(status::forbidden));
    return std::nullopt;
  });
  r.after([](request&, response& out) { out.set_header("X-After", "1"); });
  auto api = r.group("/api");
  api.after([](request&, response& out) { out.set_header("X-Group", "api"); });
  api.get("/items/{id:int}", [](request&, std::int64_t id) -> task<response> {
    co_await stet::sleep_for(1ms);  // the after hooks see the late answer
    co_return response::text(std::to_string(id));
  });
  const response got = call(r, "/api/items/3");
  EXPECT_EQ(got.body(), "3");
  EXPECT_EQ(got.header("x-after"), "1");
  EXPECT_EQ(got.header("x-group"), "api");

  stet::test_request denied(method::get, "/api/items/3");
  denied.header("X-Deny", "1");
  EXPECT_EQ(r.handle(denied).status(), status::forbidden);
}

TEST(RouterCoroAsync, FutureCompletedFromAnotherThread) {
  router r;
  std::thread helper;
  r.get("/later", [&helper](request&) -> task<response> {
    auto [promise, future] = stet::make_promise<std::string>();
    helper = std::thread([p = std::move(promise)]() mutable {
      std::this_thread::sleep_for(5ms);
      EXPECT_TRUE(p.set_value("from afar"));
    });
    co_return response::text(co_await future);
  });
  EXPECT_EQ(call(r, "/later").body(), "from afar");
  helper.join();
}

TEST(RouterCoroAsync, BrokenPromiseIs500) {
  router r;
  std::thread helper;
  r.get("/broken", [&helper](request&) -> task<response> {
    auto [promise, future] = stet::make_promise<int>();
    helper = std::thread([p = std::move(promise)] {});  // destroyed unset, elsewhere
    co_return response::text(std::to_string(co_await future));
  });
  EXPECT_EQ(call(r, "/broken").status(), status::internal_server_error);
  helper.join();
}

TEST(RouterCoroAsync, FutureSetBeforeAwaitingIsReadyAtOnce) {
  router r;
  r.get("/ready", [](request&) -> task<response> {
    auto [promise, future] = stet::make_promise<void>();
    EXPECT_FALSE(promise.abandoned());
    EXPECT_TRUE(promise.set_value());
    EXPECT_FALSE(promise.set_value());  // first call wins
    co_await future;
    co_return response::text("ok");
  });
  EXPECT_EQ(call(r, "/ready").body(), "ok");
}

}  // namespace
