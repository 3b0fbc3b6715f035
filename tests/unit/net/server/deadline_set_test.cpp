#include "net/server/deadline_set.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <utility>
#include <vector>

namespace {

using namespace std::chrono_literals;
using stet::detail::deadline_hook;
using stet::detail::deadline_set;
using stet::detail::deadline_target;
using stet::detail::steady;
using stet::detail::timeout_kind;
using stet::detail::timeout_kind_count;

// Records each timeout it is told of; may arm again from inside on_timeout().
struct recorder final : deadline_target {
  recorder() { hook.target = this; }
  void on_timeout(timeout_kind kind) override {
    fired.push_back(kind);
    if (then) std::exchange(then, nullptr)();
  }
  bool evictable() noexcept override { return false; }
  void evict() noexcept override {}

  deadline_hook hook;
  std::vector<timeout_kind> fired;
  std::function<void()> then;
};

std::array<steady::duration, timeout_kind_count> all(steady::duration d) {
  std::array<steady::duration, timeout_kind_count> a;
  a.fill(d);
  return a;
}

// One timer serves the HTTP kinds and the WebSocket durations alike: both
// fire, each with its own list's kind, and the loop runs dry afterwards.
TEST(DeadlineSet, KindListsAndDurationListsFireOnOneTimer) {
  stet::detail::asio::io_context io;
  deadline_set set(io, all(1ms));
  recorder http, ws;
  set.arm(http.hook, timeout_kind::header, steady::now());
  set.arm_for(ws.hook, 2ms, steady::now());
  io.run();
  EXPECT_EQ(http.fired, std::vector<timeout_kind>{timeout_kind::header});
  EXPECT_EQ(ws.fired, std::vector<timeout_kind>{timeout_kind::idle});
  EXPECT_EQ(http.hook.owner, nullptr);
  EXPECT_EQ(ws.hook.owner, nullptr);
}

// A timeout that arms a duration never seen before adds a list while the
// tick walks the lists; the new deadline still fires.
TEST(DeadlineSet, ArmingANewDurationFromATimeoutFires) {
  stet::detail::asio::io_context io;
  deadline_set set(io, all(1ms));
  recorder r;
  std::vector<recorder> others(8);
  r.then = [&] {
    for (std::size_t i = 0; i < others.size(); ++i) {
      set.arm_for(others[i].hook, std::chrono::milliseconds(1 + i), steady::now());
    }
  };
  set.arm_for(r.hook, 1ms, steady::now());
  io.run();
  for (const recorder& o : others) EXPECT_EQ(o.fired.size(), 1U);
}

// A hook re-armed before its deadline moves back and fires once; a disarmed
// one never fires; cancel() leaves armed hooks linked but stops the ticks.
TEST(DeadlineSet, RearmDisarmAndCancel) {
  stet::detail::asio::io_context io;
  deadline_set set(io, all(1ms));
  recorder moved, gone, left;
  set.arm(moved.hook, timeout_kind::idle, steady::now());
  set.arm(moved.hook, timeout_kind::idle, steady::now());
  set.arm(gone.hook, timeout_kind::write, steady::now());
  deadline_set::disarm(gone.hook);
  io.run();
  EXPECT_EQ(moved.fired.size(), 1U);
  EXPECT_TRUE(gone.fired.empty());

  io.restart();
  set.arm(left.hook, timeout_kind::body, steady::now());
  set.cancel();
  io.run();
  EXPECT_TRUE(left.fired.empty());
  EXPECT_NE(left.hook.owner, nullptr);
  deadline_set::disarm(left.hook);
}

}  // namespace
