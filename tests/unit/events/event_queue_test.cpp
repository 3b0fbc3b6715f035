#include "events/event_queue.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace {

using stet::detail::event_queue;
using take = event_queue::take_result;

event_queue::text text(std::string s) { return std::make_shared<const std::string>(std::move(s)); }

// Takes everything waiting; `parked` says whether the queue asked to park.
struct taker {
  int parks = 0;
  int wakes = 0;
  std::string out;
  take run(event_queue& q) {
    out.clear();
    return q.take(out, 1 << 20, [this] {
      ++parks;
      return std::function<void()>([this] { ++wakes; });
    });
  }
};

stet::event_stream_options small(std::size_t events, std::size_t bytes) {
  stet::event_stream_options o;
  o.max_queued_events = events;
  o.max_queued_bytes = bytes;
  return o;
}

TEST(EventQueue, ParksWhenEmptyAndTheNextPushWakesOnce) {
  event_queue q(small(8, 1024));
  taker t;
  EXPECT_EQ(t.run(q), take::parked);
  EXPECT_EQ(t.wakes, 0);
  EXPECT_EQ(q.push(text("a")), stet::event_status::queued);
  EXPECT_EQ(q.push(text("b")), stet::event_status::queued);
  EXPECT_EQ(t.wakes, 1);  // the wake is used once
  EXPECT_EQ(t.run(q), take::taken);
  EXPECT_EQ(t.out, "ab");
}

TEST(EventQueue, OverTheEventBoundTheStreamEndsWithARetryAndDropsWhatWaits) {
  event_queue q(small(2, 1024));
  EXPECT_EQ(q.push(text("1")), stet::event_status::queued);
  EXPECT_EQ(q.push(text("2")), stet::event_status::queued);
  EXPECT_EQ(q.push(text("3")), stet::event_status::overflow);
  EXPECT_EQ(q.push(text("4")), stet::event_status::closed);
  taker t;
  EXPECT_EQ(t.run(q), take::overflowed);
  EXPECT_EQ(t.out, "");
}

TEST(EventQueue, OverTheByteBoundLikewiseButOneLargeEventFitsAnEmptyQueue) {
  event_queue q(small(100, 10));
  EXPECT_EQ(q.push(text(std::string(50, 'x'))), stet::event_status::queued);
  EXPECT_EQ(q.push(text("y")), stet::event_status::overflow);
}

TEST(EventQueue, TakeStopsNearTheTarget) {
  event_queue q(small(100, 1 << 20));
  for (int i = 0; i < 10; ++i) q.push(text(std::string(100, 'x')));
  std::string out;
  EXPECT_EQ(q.take(out, 250, [] { return std::function<void()>(); }), take::taken);
  EXPECT_EQ(out.size(), 300u);
}

TEST(EventQueue, CloseEndsAfterWhatWaits) {
  event_queue q(small(8, 1024));
  q.push(text("last"));
  q.close();
  EXPECT_EQ(q.push(text("late")), stet::event_status::closed);
  taker t;
  EXPECT_EQ(t.run(q), take::taken);
  EXPECT_EQ(t.out, "last");
  EXPECT_EQ(t.run(q), take::ended);
}

TEST(EventQueue, LiveDeliveriesWaitForTheReplayAndRepeatsAreDropped) {
  event_queue q(small(64, 1 << 20));
  const std::size_t sub = q.add_subscription("room", true);
  // Published while the replay was on its way: 11 is in the replay too.
  q.deliver(sub, "11", text("live11;"));
  q.deliver(sub, "12", text("live12;"));
  taker t;
  EXPECT_EQ(t.run(q), take::parked);
  stet::detail::bus_replay r;
  r.events = {{"10", "ten"}, {"11", "eleven"}};
  q.replayed(sub, "9", std::move(r));
  EXPECT_EQ(t.wakes, 1);
  EXPECT_EQ(t.run(q), take::taken);
  EXPECT_EQ(t.out, "id: 10\ndata: ten\n\nid: 11\ndata: eleven\n\nlive12;");
  q.deliver(sub, "13", text("live13;"));
  EXPECT_EQ(t.run(q), take::taken);
  EXPECT_EQ(t.out, "live13;");
}

TEST(EventQueue, AGapIsAnnouncedBeforeTheEventsThatFollowIt) {
  event_queue q(small(64, 1 << 20));
  const std::size_t sub = q.add_subscription("room", true);
  stet::detail::bus_replay r;
  r.complete = false;
  r.events = {{"20", "twenty"}};
  q.replayed(sub, "3", std::move(r));
  taker t;
  EXPECT_EQ(t.run(q), take::taken);
  EXPECT_EQ(t.out, "event: gap\ndata: 3\n\nid: 20\ndata: twenty\n\n");
}

TEST(EventQueue, AReplayLargerThanTheQueueIsCutAndTheStreamEndsForTheClientToComeBack) {
  event_queue q(small(4, 1 << 20));
  const std::size_t sub = q.add_subscription("room", true);
  q.deliver(sub, "99", text("live;"));
  stet::detail::bus_replay r;
  for (int i = 1; i <= 4; ++i) r.events.push_back({std::to_string(i), "e"});
  q.replayed(sub, "0", std::move(r));
  taker t;
  EXPECT_EQ(t.run(q), take::taken);
  // Three fit (one place is kept), the live one is not sent out of order.
  EXPECT_EQ(t.out, "id: 1\ndata: e\n\nid: 2\ndata: e\n\nid: 3\ndata: e\n\n");
  EXPECT_EQ(t.run(q), take::overflowed);
}

TEST(EventQueue, IdsCompareAsNumbersAndAsRedisStreamIds) {
  using stet::detail::compare_event_ids;
  EXPECT_LT(compare_event_ids("9", "10"), 0);
  EXPECT_GT(compare_event_ids("1700000000000-2", "1700000000000-1"), 0);
  EXPECT_LT(compare_event_ids("1700000000000-9", "1700000000001-0"), 0);
  EXPECT_EQ(compare_event_ids("5-0", "5"), 0);
}

TEST(EventQueue, DetachRefusesEverythingAfter) {
  event_queue q(small(8, 1024));
  q.push(text("x"));
  q.detach();
  EXPECT_EQ(q.push(text("y")), stet::event_status::closed);
  taker t;
  EXPECT_EQ(t.run(q), take::ended);
}

}  // namespace
