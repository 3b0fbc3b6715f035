#include "pubsub/in_process_bus.hpp"

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

namespace {

using stet::detail::bus_event;
using stet::detail::bus_replay;
using stet::detail::in_process_bus;

struct seen {
  std::string topic, id, data;
};

struct recorder {
  std::vector<seen> events;
  void attach(in_process_bus& b) {
    b.start([this](const bus_event& e) {
      events.push_back({std::string(e.topic), std::string(e.id), std::string(e.data)});
    });
  }
};

bus_replay replay(in_process_bus& b, std::string_view topic, std::string_view last, std::size_t limit = 100) {
  bus_replay out;
  bool ran = false;
  b.replay(topic, last, limit, [&](bus_replay r) {
    out = std::move(r);
    ran = true;
  });
  EXPECT_TRUE(ran);
  return out;
}

TEST(InProcessBus, DeliversAtOnceWithIncreasingIdsPerTopic) {
  in_process_bus b;
  recorder r;
  r.attach(b);
  EXPECT_TRUE(b.publish("a", "1"));
  EXPECT_TRUE(b.publish("a", "2"));
  EXPECT_TRUE(b.publish("b", "x"));
  ASSERT_EQ(r.events.size(), 3u);
  EXPECT_EQ(r.events[0].data, "1");
  EXPECT_EQ(std::stoull(r.events[1].id), std::stoull(r.events[0].id) + 1);
  EXPECT_EQ(b.stats().published, 3u);
  EXPECT_EQ(b.stats().delivered, 3u);
}

TEST(InProcessBus, NothingIsDeliveredAfterStop) {
  in_process_bus b;
  recorder r;
  r.attach(b);
  b.stop();
  b.publish("a", "1");
  EXPECT_TRUE(r.events.empty());
}

TEST(InProcessBus, ReplayGivesWhatFollowsTheLastIdAndSaysWhenItIsComplete) {
  in_process_bus b;
  recorder r;
  r.attach(b);
  for (int i = 0; i < 5; ++i) b.publish("t", std::to_string(i));
  const std::string second = r.events[1].id;
  const bus_replay got = replay(b, "t", second);
  EXPECT_TRUE(got.complete);
  ASSERT_EQ(got.events.size(), 3u);
  EXPECT_EQ(got.events[0].data, "2");
  EXPECT_EQ(got.events[0].id, r.events[2].id);
  EXPECT_TRUE(replay(b, "t", r.events[4].id).events.empty());
  EXPECT_TRUE(replay(b, "t", r.events[4].id).complete);
  EXPECT_EQ(replay(b, "t", second, 2).events.size(), 2u);
}

TEST(InProcessBus, AnIdOlderThanTheHistoryOrUnknownIsAGap) {
  in_process_bus::limits l;
  l.topic_events = 3;
  in_process_bus b(l);
  recorder r;
  r.attach(b);
  for (int i = 0; i < 6; ++i) b.publish("t", std::to_string(i));
  // Kept: 3, 4, 5. From 2 on nothing is missing; from 1, event 2 is.
  EXPECT_TRUE(replay(b, "t", r.events[2].id).complete);
  const bus_replay old = replay(b, "t", r.events[1].id);
  EXPECT_FALSE(old.complete);
  ASSERT_EQ(old.events.size(), 3u);
  EXPECT_EQ(old.events[0].data, "3");
  EXPECT_FALSE(replay(b, "t", "garbage").complete);
  EXPECT_FALSE(replay(b, "t", "99999999999999999").complete);  // from the future (another incarnation)
  EXPECT_FALSE(replay(b, "never-published", "5").complete);
}

TEST(InProcessBus, HistoryIsBoundedPerTopicInBytes) {
  in_process_bus::limits l;
  l.topic_bytes = 1000;
  in_process_bus b(l);
  for (int i = 0; i < 100; ++i) b.publish("t", std::string(100, 'x'));
  EXPECT_LE(b.history_bytes(), 1000u);
  EXPECT_GE(b.history_bytes(), 500u);
}

TEST(InProcessBus, HistoryIsBoundedOverAllTopicsAndUnwatchedTopicsGoFirst) {
  in_process_bus::limits l;
  l.total_bytes = 10'000;
  l.topics = 50;
  in_process_bus b(l);
  b.watch("kept");
  b.publish("kept", std::string(500, 'k'));
  for (int i = 0; i < 500; ++i) b.publish("topic-" + std::to_string(i), std::string(100, 'x'));
  EXPECT_LE(b.history_bytes(), 10'000u);
  EXPECT_LE(b.topic_count(), 50u);
  // The watched topic kept its history.
  EXPECT_EQ(replay(b, "kept", "0").events.size(), 1u);
}

TEST(InProcessBus, IdsKeepIncreasingWhenATopicIsForgottenAndComesBack) {
  in_process_bus::limits l;
  l.topics = 1;
  in_process_bus b(l);
  recorder r;
  r.attach(b);
  b.publish("a", "1");
  b.publish("a", "2");
  b.publish("b", "1");  // "a" is forgotten, "2" with it
  b.publish("a", "3");
  ASSERT_EQ(r.events.size(), 4u);
  EXPECT_GT(std::stoull(r.events[3].id), std::stoull(r.events[1].id));
  // A client that saw "1" missed "2", which no history holds any more: a gap.
  const bus_replay from_first = replay(b, "a", r.events[0].id);
  EXPECT_FALSE(from_first.complete);
  ASSERT_EQ(from_first.events.size(), 1u);
  EXPECT_EQ(from_first.events[0].data, "3");
}

TEST(InProcessBus, PublishOrderPerTopicHoldsAcrossThreads) {
  in_process_bus b;
  std::vector<std::string> ids;
  b.start([&](const bus_event& e) { ids.emplace_back(e.id); });  // called under the topic's order
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 500; ++i) b.publish("t", "x");
    });
  for (auto& t : threads) t.join();
  ASSERT_EQ(ids.size(), 2000u);
  for (std::size_t i = 1; i < ids.size(); ++i) ASSERT_EQ(std::stoull(ids[i]), std::stoull(ids[i - 1]) + 1);
}

}  // namespace
