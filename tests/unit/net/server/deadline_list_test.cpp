#include "net/server/deadline_list.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <vector>

namespace {

using namespace std::chrono_literals;
using stet::detail::deadline_hook;
using stet::detail::deadline_list;
using stet::detail::deadline_target;
using stet::detail::steady;
using stet::detail::timeout_kind;

// The hooks of `list` from front to back, taking each off in turn (as the
// worker's tick does with the ones that are due).
std::vector<deadline_hook*> drain(deadline_list& list) {
  std::vector<deadline_hook*> order;
  while (deadline_hook* h = list.front()) {
    order.push_back(h);
    deadline_list::unlink(*h);
  }
  return order;
}

TEST(DeadlineList, EmptyHasNoFront) {
  deadline_list list(timeout_kind::idle, 5s);
  EXPECT_EQ(list.front(), nullptr);
  EXPECT_EQ(list.kind(), timeout_kind::idle);
}

TEST(DeadlineList, PushSetsTheDeadlineAndKeepsArrivalOrder) {
  deadline_list list(timeout_kind::header, 10s);
  const steady::time_point t0{};
  deadline_hook a, b, c;
  EXPECT_EQ(list.push(a, t0), t0 + 10s);
  EXPECT_EQ(list.push(b, t0 + 1s), t0 + 11s);
  EXPECT_EQ(list.push(c, t0 + 2s), t0 + 12s);
  EXPECT_EQ(a.deadline, t0 + 10s);
  EXPECT_EQ(a.owner, &list);
  EXPECT_EQ(list.front(), &a);
  EXPECT_EQ(drain(list), (std::vector<deadline_hook*>{&a, &b, &c}));
}

TEST(DeadlineList, UnlinkFromAnyPlace) {
  deadline_list list(timeout_kind::body, 1s);
  deadline_hook a, b, c, d;
  for (deadline_hook* h : {&a, &b, &c, &d}) list.push(*h, steady::time_point{});
  deadline_list::unlink(c);  // middle
  EXPECT_EQ(c.owner, nullptr);
  EXPECT_EQ(c.prev, nullptr);
  EXPECT_EQ(c.next, nullptr);
  deadline_list::unlink(a);  // front
  EXPECT_EQ(list.front(), &b);
  deadline_list::unlink(d);  // back
  EXPECT_EQ(drain(list), (std::vector<deadline_hook*>{&b}));
}

TEST(DeadlineList, UnlinkingAnUnlinkedHookDoesNothing) {
  deadline_list list(timeout_kind::write, 1s);
  deadline_hook a, loose;
  list.push(a, steady::time_point{});
  deadline_list::unlink(loose);
  deadline_list::unlink(loose);
  EXPECT_EQ(loose.owner, nullptr);
  deadline_list::unlink(a);
  deadline_list::unlink(a);
  EXPECT_EQ(list.front(), nullptr);
}

TEST(DeadlineList, RearmMovesToTheBackWithANewDeadline) {
  deadline_list list(timeout_kind::idle, 5s);
  const steady::time_point t0{};
  deadline_hook a, b, c;
  list.push(a, t0);
  list.push(b, t0);
  list.push(c, t0);
  EXPECT_EQ(list.push(a, t0 + 3s), t0 + 8s);  // a was first: now last, due later
  EXPECT_EQ(list.front(), &b);
  list.push(c, t0 + 4s);  // the last one re-armed stays last
  EXPECT_EQ(drain(list), (std::vector<deadline_hook*>{&b, &a, &c}));
  EXPECT_EQ(c.deadline, t0 + 9s);
}

TEST(DeadlineList, PushMovesAHookBetweenLists) {
  deadline_list header(timeout_kind::header, 10s);
  deadline_list idle(timeout_kind::idle, 60s);
  const steady::time_point t0{};
  deadline_hook a, b;
  header.push(a, t0);
  header.push(b, t0);
  EXPECT_EQ(idle.push(a, t0 + 1s), t0 + 61s);  // takes its duration from the new list
  EXPECT_EQ(a.owner, &idle);
  EXPECT_EQ(drain(header), (std::vector<deadline_hook*>{&b}));
  EXPECT_EQ(drain(idle), (std::vector<deadline_hook*>{&a}));
}

TEST(DeadlineList, FrontIsTheEarliestDeadline) {
  // All entries share one duration, so appending in time order keeps the
  // list sorted: the front is always the next to expire.
  deadline_list list(timeout_kind::linger, 2s);
  std::vector<deadline_hook> hooks(20);
  steady::time_point now{};
  for (std::size_t i = 0; i < hooks.size(); ++i) {
    list.push(hooks[(i * 7) % hooks.size()], now);
    now += 10ms;
  }
  for (std::size_t i = 0; i < hooks.size(); i += 3) list.push(hooks[i], now += 10ms);  // re-arm some
  steady::time_point last{};
  std::size_t count = 0;
  while (deadline_hook* h = list.front()) {
    EXPECT_GE(h->deadline, last);
    last = h->deadline;
    deadline_list::unlink(*h);
    ++count;
  }
  EXPECT_EQ(count, hooks.size());
}

TEST(DeadlineList, TargetIsKeptForTheOwner) {
  deadline_list list(timeout_kind::handler, 1s);
  struct target final : deadline_target {
    void on_timeout(timeout_kind) override {}
    bool evictable() noexcept override { return false; }
    void evict() noexcept override {}
  } owner;
  deadline_hook a;
  a.target = &owner;
  list.push(a, steady::time_point{});
  EXPECT_EQ(list.front()->target, static_cast<deadline_target*>(&owner));
}

}  // namespace
