// The Redis bus against a real redis-server on loopback: two bus objects on
// one Redis stand for two instances of a server.
#include "pubsub/redis_bus.hpp"

#include "pubsub/stream_id.hpp"
#include "support/bus_collector.hpp"
#include "support/redis_server.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <functional>
#include <future>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace {

using namespace std::chrono_literals;
using stet::detail::bus;
using stet::test::bus_collector;
using stet::test::delivered_event;
using stet::test::redis_server;

stet::detail::redis_bus_options options_for(const redis_server& redis) {
  stet::detail::redis_bus_options o;
  o.address = {"127.0.0.1", redis.port()};
  o.reconnect_min = 20ms;  // tests wait for reconnects: keep them quick
  o.reconnect_max = 200ms;
  return o;
}

bool eventually(const std::function<bool()>& pred, std::chrono::milliseconds timeout = 5s) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!pred()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(5ms);
  }
  return true;
}

// Subscribing is asynchronous: publish probes until every collector has seen
// one, so the messages that follow are known to reach every subscriber. Each
// call's probes are its own ("probe 7 ..."): an earlier call's prove nothing.
void await_subscribed(bus& publisher, const std::string& topic, std::vector<bus_collector*> sinks) {
  static std::atomic<int> calls{0};
  const std::string probe = "probe " + std::to_string(++calls) + " ";
  ASSERT_TRUE(eventually([&] { return publisher.stats().connected; }));
  const bool all = eventually([&] {
    publisher.publish(topic, probe + topic);
    for (bus_collector* c : sinks) {
      if (c->wait_for(1, probe, 20ms).empty()) return false;
    }
    return true;
  });
  ASSERT_TRUE(all) << "subscriptions never took effect";
}

std::vector<std::string> datas(const std::vector<delivered_event>& events) {
  std::vector<std::string> out;
  for (const delivered_event& e : events) out.push_back(e.data);
  return out;
}

struct two_instances : ::testing::Test {
  void SetUp() override {
    ASSERT_TRUE(redis.start()) << "redis-server could not be started (is it installed?)";
    stet::detail::redis_bus_options options = options_for(redis);
    tune(options);
    a = stet::detail::make_redis_bus(options);
    b = stet::detail::make_redis_bus(options);
    a->start(at_a.sink());
    b->start(at_b.sink());
    a->watch("room");
    b->watch("room");
    await_subscribed(*a, "room", {&at_a, &at_b});
  }

  /// A fixture's own options for both instances.
  virtual void tune(stet::detail::redis_bus_options& /*options*/) {}

  redis_server redis;
  bus_collector at_a;
  bus_collector at_b;
  std::unique_ptr<bus> a;
  std::unique_ptr<bus> b;
};

TEST_F(two_instances, PublishReachesEveryInstanceOnceInOneOrder) {
  constexpr int n = 200;
  std::thread from_b([&] {
    for (int i = 0; i < n; ++i) ASSERT_TRUE(b->publish("room", "msg b" + std::to_string(i)));
  });
  for (int i = 0; i < n; ++i) ASSERT_TRUE(a->publish("room", "msg a" + std::to_string(i)));
  from_b.join();

  const std::vector<delivered_event> seen_a = at_a.wait_for(2 * n, "msg ");
  const std::vector<delivered_event> seen_b = at_b.wait_for(2 * n, "msg ");
  std::this_thread::sleep_for(100ms);  // a duplicate would arrive right behind
  ASSERT_EQ(at_a.wait_for(0, "msg ").size(), 2u * n);
  ASSERT_EQ(at_b.wait_for(0, "msg ").size(), 2u * n);
  // One order for everybody: both instances saw the same sequence, ids rising.
  EXPECT_EQ(datas(seen_a), datas(seen_b));
  for (std::size_t i = 1; i < seen_a.size(); ++i) {
    EXPECT_EQ(seen_a[i].id, seen_b[i].id);
    EXPECT_LT(stet::detail::parse_stream_id(seen_a[i - 1].id), stet::detail::parse_stream_id(seen_a[i].id));
  }
  // Each publisher's messages keep their order, and none is missing.
  int next_a = 0;
  int next_b = 0;
  for (const delivered_event& e : seen_a) {
    EXPECT_EQ(e.topic, "room");
    if (e.data.starts_with("msg a"))
      EXPECT_EQ(e.data, "msg a" + std::to_string(next_a++));
    else
      EXPECT_EQ(e.data, "msg b" + std::to_string(next_b++));
  }
  EXPECT_EQ(next_a, n);
  EXPECT_EQ(next_b, n);
  EXPECT_GE(a->stats().published, static_cast<std::uint64_t>(n));  // and the probes
  EXPECT_GE(a->stats().delivered, 2u * n);
  EXPECT_EQ(a->stats().lost, 0u);
  EXPECT_EQ(a->stats().refused, 0u);
}

TEST_F(two_instances, UnwatchStopsDeliveryAndWatchResumesIt) {
  b->unwatch("room");
  b->watch("side");
  await_subscribed(*a, "side", {&at_b});
  ASSERT_TRUE(a->publish("room", "after unwatch"));
  ASSERT_TRUE(a->publish("side", "later on one connection"));
  ASSERT_EQ(at_b.wait_for(1, "later").size(), 1u);
  // Redis delivers one connection's messages in order: had "room" still been
  // delivered to b, it would have come before "side".
  EXPECT_TRUE(at_b.wait_for(0, "after unwatch").empty());
  EXPECT_EQ(at_a.wait_for(1, "after unwatch").size(), 1u);

  b->watch("room");
  await_subscribed(*a, "room", {&at_b});
  ASSERT_TRUE(a->publish("room", "watched again"));
  EXPECT_EQ(at_b.wait_for(1, "watched again").size(), 1u);
}

// Replays run on the bus's thread; the test waits for the answer.
stet::detail::bus_replay replay(bus& on, const std::string& topic, const std::string& last, std::size_t limit) {
  std::promise<stet::detail::bus_replay> answer;
  on.replay(topic, last, limit, [&](stet::detail::bus_replay r) { answer.set_value(std::move(r)); });
  auto future = answer.get_future();
  EXPECT_EQ(future.wait_for(5s), std::future_status::ready);
  return future.get();
}

TEST_F(two_instances, ReplayOnAnotherInstanceResumesAfterTheLastId) {
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(a->publish("room", "hist " + std::to_string(i)));
  const std::vector<delivered_event> seen = at_b.wait_for(5, "hist ");
  ASSERT_EQ(seen.size(), 5u);

  const stet::detail::bus_replay r = replay(*b, "room", seen[1].id, 100);
  EXPECT_FALSE(r.failed);
  EXPECT_TRUE(r.complete);
  ASSERT_EQ(r.events.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(r.events[i].id, seen[i + 2].id);
    EXPECT_EQ(r.events[i].data, seen[i + 2].data);
  }
  EXPECT_EQ(replay(*b, "room", seen[1].id, 2).events.size(), 2u);  // the limit
  EXPECT_TRUE(replay(*b, "room", seen[4].id, 100).events.empty());

  const stet::detail::bus_replay nonsense = replay(*b, "room", "not-an-id", 100);
  EXPECT_FALSE(nonsense.failed);
  EXPECT_FALSE(nonsense.complete);
  // A topic without history: an id for it cannot be resumed.
  EXPECT_FALSE(replay(*b, "never published", seen[1].id, 100).complete);
}

// What an event stream does when it resumes on an instance with no
// subscriber of its topic yet (a client reconnecting to another instance):
// watch the topic, then replay from the client's last id, holding live
// deliveries until the replay answers. Replayed and live events together
// must hold every message after that id, however the two commands (on two
// connections) and the other instance's publishes interleave in Redis.
// Two instances whose history outlasts a round of steady publishing.
struct long_history_instances : two_instances {
  void tune(stet::detail::redis_bus_options& options) override { options.history = 100000; }
};

TEST_F(long_history_instances, AResumeThatStartsWatchingMissesNothingPublishedMeanwhile) {
  constexpr int rounds = 10;
  for (int round = 0; round < rounds; ++round) {
    const std::string topic = "resume " + std::to_string(round);
    const std::string prefix = "r" + std::to_string(round) + ":";
    const auto of_topic = [&](bus_collector& c) {
      std::vector<delivered_event> out;
      for (delivered_event& e : c.snapshot())
        if (e.topic == topic && e.data.starts_with(prefix)) out.push_back(std::move(e));
      return out;
    };
    a->watch(topic);
    await_subscribed(*a, topic, {&at_a});
    // Stopped and joined when the round ends, an ASSERT's return included.
    struct steady_publisher {
      std::atomic<bool> publishing{true};
      std::atomic<int> sent{0};
      std::thread thread;
      void stop() {
        publishing = false;
        if (thread.joinable()) thread.join();
      }
      ~steady_publisher() { stop(); }
    } stream;
    stream.thread = std::thread([&] {
      while (stream.publishing) {
        if (a->publish(topic, prefix + std::to_string(stream.sent.load()))) ++stream.sent;
        std::this_thread::sleep_for(50us);
      }
    });
    ASSERT_GE(at_a.wait_for(3, prefix).size(), 3u);
    const std::string last = of_topic(at_a).back().id;  // what the client had seen

    // The last round resumes behind a crowd: b subscribes to many topics
    // just before (as after a reconnect, when every watched topic is
    // subscribed again), so Redis reads the topic's SUBSCRIBE many event-loop
    // turns after the replay on the other connection.
    if (round == rounds - 1)
      for (int i = 0; i < 20000; ++i) b->watch("crowd " + std::to_string(i));
    b->watch(topic);
    const stet::detail::bus_replay r = replay(*b, topic, last, 100000);
    std::this_thread::sleep_for(20ms);
    stream.stop();
    const auto sent = static_cast<std::size_t>(stream.sent.load());
    ASSERT_EQ(at_a.wait_for(sent, prefix).size(), sent);
    const std::string final_id = of_topic(at_a).back().id;
    at_b.wait_until([&](const std::vector<delivered_event>& all) {
      return std::any_of(all.begin(), all.end(), [&](const delivered_event& e) { return e.id == final_id; });
    });
    ASSERT_FALSE(r.failed);
    ASSERT_TRUE(r.complete);

    // The client's view: the replay, then the live events after its newest.
    std::vector<std::string> got;
    for (const stet::detail::bus_record& e : r.events) got.push_back(e.id);
    const auto newest =
        r.events.empty() ? stet::detail::parse_stream_id(last) : stet::detail::parse_stream_id(r.events.back().id);
    for (const delivered_event& e : of_topic(at_b))
      if (stet::detail::parse_stream_id(e.id) > newest) got.push_back(e.id);
    std::vector<std::string> expected;
    for (const delivered_event& e : of_topic(at_a))
      if (stet::detail::parse_stream_id(e.id) > stet::detail::parse_stream_id(last)) expected.push_back(e.id);
    ASSERT_EQ(got, expected) << "round " << round << ": " << expected.size() - std::min(expected.size(), got.size())
                             << " of " << expected.size() << " messages after the resume point missing";
    b->unwatch(topic);
    a->unwatch(topic);
  }
}

TEST(RedisBus, ReplayReportsTheGapWhenHistoryWasTrimmed) {
  // Small stream nodes so MAXLEN ~ trims after a few entries.
  redis_server redis({"--stream-node-max-entries", "4"});
  ASSERT_TRUE(redis.start()) << "redis-server could not be started (is it installed?)";
  auto options = options_for(redis);
  options.history = 4;
  auto bus = stet::detail::make_redis_bus(options);
  bus_collector seen;
  bus->start(seen.sink());
  bus->watch("t");
  await_subscribed(*bus, "t", {&seen});
  for (int i = 0; i < 20; ++i) ASSERT_TRUE(bus->publish("t", "n" + std::to_string(i)));
  const std::vector<delivered_event> events = seen.wait_for(20, "n");
  ASSERT_EQ(events.size(), 20u);

  const stet::detail::bus_replay gap = replay(*bus, "t", events[0].id, 100);
  EXPECT_FALSE(gap.failed);
  EXPECT_FALSE(gap.complete);
  ASSERT_FALSE(gap.events.empty());
  EXPECT_LT(gap.events.size(), 19u);
  EXPECT_EQ(gap.events.back().data, "n19");

  // The id just before the oldest kept entry: trimmed, yet nothing is missing.
  const std::string& oldest = gap.events.front().id;
  std::size_t at = 0;
  while (events[at].id != oldest) ++at;
  ASSERT_GT(at, 0u);
  const stet::detail::bus_replay no_gap = replay(*bus, "t", events[at - 1].id, 100);
  EXPECT_TRUE(no_gap.complete);
  EXPECT_EQ(no_gap.events.size(), gap.events.size());
}

TEST(RedisBus, StartsWithoutRedisAndConnectsWhenItArrives) {
  redis_server redis;  // its port, not yet listening
  auto bus = stet::detail::make_redis_bus(options_for(redis));
  bus_collector seen;
  bus->start(seen.sink());
  bus->watch("t");
  std::this_thread::sleep_for(100ms);  // several attempts fail meanwhile
  EXPECT_FALSE(bus->stats().connected);
  EXPECT_FALSE(bus->publish("t", "into the void"));
  EXPECT_EQ(bus->stats().refused, 1u);
  EXPECT_EQ(bus->stats().published, 0u);
  EXPECT_TRUE(replay(*bus, "t", "1-0", 10).failed);

  ASSERT_TRUE(redis.start()) << "redis-server could not be started (is it installed?)";
  await_subscribed(*bus, "t", {&seen});
  EXPECT_TRUE(bus->stats().connected);
  EXPECT_EQ(bus->stats().reconnects, 0u);  // a first connection, not a reconnection
}

TEST_F(two_instances, SurvivesRedisKilledMidStreamAndResumesAfterRestart) {
  const stet::detail::bus_stats before = a->stats();  // the probes of SetUp
  std::atomic<bool> publishing{true};
  std::atomic<std::uint64_t> attempts{0};
  std::thread stream([&] {
    for (int i = 0; publishing; ++i) {
      a->publish("room", "live " + std::to_string(i));
      ++attempts;
      if (i % 16 == 0) std::this_thread::sleep_for(1ms);
    }
  });
  ASSERT_FALSE(at_b.wait_for(50, "live ").empty());
  redis.stop(SIGKILL);
  ASSERT_TRUE(eventually([&] { return !a->stats().connected && !b->stats().connected; }));
  std::this_thread::sleep_for(100ms);  // publishes meanwhile are refused, not buffered
  publishing = false;
  stream.join();

  const stet::detail::bus_stats down = a->stats();
  EXPECT_EQ(down.published + down.refused - before.published - before.refused, attempts.load());
  EXPECT_GT(down.refused, 0u);
  // Accepted but never answered: lost, and nothing stays queued.
  EXPECT_LE(down.lost, down.published);
  const std::size_t delivered_before = at_b.snapshot().size();

  ASSERT_TRUE(redis.start());
  ASSERT_TRUE(eventually([&] { return a->stats().connected && b->stats().connected; }));
  EXPECT_GE(a->stats().reconnects, 2u);  // both connections came back
  EXPECT_GE(b->stats().reconnects, 2u);
  // Resubscribed on the new Redis without being asked again.
  await_subscribed(*a, "room", {&at_a, &at_b});
  ASSERT_TRUE(b->publish("room", "after restart"));
  EXPECT_EQ(at_a.wait_for(1, "after restart").size(), 1u);
  EXPECT_EQ(at_b.wait_for(1, "after restart").size(), 1u);
  EXPECT_GT(at_b.snapshot().size(), delivered_before);
  // What did arrive arrived once and in order, across the crash.
  int last = -1;
  for (const delivered_event& e : at_b.wait_for(0, "live ")) {
    const int i = std::stoi(e.data.substr(5));
    EXPECT_GT(i, last);
    last = i;
  }
}

TEST(RedisBus, RefusesPublishesBeyondTheOutgoingBound) {
  redis_server redis;
  ASSERT_TRUE(redis.start()) << "redis-server could not be started (is it installed?)";
  auto options = options_for(redis);
  options.max_outstanding = 8;
  auto bus = stet::detail::make_redis_bus(options);
  bus_collector seen;
  bus->start(seen.sink());
  ASSERT_TRUE(eventually([&] { return bus->stats().connected; }));

  redis.pause();  // connected, answering nothing: publishes stay outstanding
  int accepted = 0;
  for (int i = 0; i < 20; ++i) accepted += bus->publish("t", "x") ? 1 : 0;
  EXPECT_EQ(accepted, 8);
  EXPECT_EQ(bus->stats().refused, 12u);
  redis.resume();
  // Answers free the room again.
  EXPECT_TRUE(eventually([&] { return bus->publish("t", "y"); }));
  EXPECT_EQ(bus->stats().lost, 0u);
}

// Two instances whose links give a silent Redis 300 ms.
struct impatient_instances : two_instances {
  void tune(stet::detail::redis_bus_options& options) override { options.reply_timeout = 300ms; }
};

TEST_F(impatient_instances, APausedRedisIsNoticedAndTheBusReturnsWhenItResumes) {
  const stet::detail::bus_stats before = a->stats();
  EXPECT_EQ(before.timeouts, 0u);  // an idle, healthy link answers its probes

  // SIGSTOP: the sockets stay open and the kernel takes the bytes; Redis
  // answers nothing. (The redis_server's destructor sends SIGCONT too.)
  redis.pause();
  int accepted = 0;
  for (int i = 0; i < 5; ++i) accepted += a->publish("room", "into the pause " + std::to_string(i)) ? 1 : 0;
  EXPECT_EQ(accepted, 5);  // not noticed yet
  const auto paused_at = std::chrono::steady_clock::now();
  ASSERT_TRUE(eventually([&] { return !a->stats().connected && !b->stats().connected; }, 3s))
      << "a paused Redis went unnoticed";
  const auto noticed = std::chrono::steady_clock::now() - paused_at;
  EXPECT_GE(noticed, 250ms);  // the timeout, not sooner (and within the 3 s above)
  EXPECT_GE(a->stats().timeouts, 1u);
  EXPECT_GE(b->stats().timeouts, 1u);
  // What was waiting for an answer is counted lost, nothing stays queued, and
  // publishes are refused while the link is down.
  EXPECT_EQ(a->stats().lost - before.lost, 5u);
  EXPECT_FALSE(a->publish("room", "refused"));
  EXPECT_EQ(a->stats().refused - before.refused, 1u);
  EXPECT_TRUE(replay(*a, "room", "1-0", 10).failed);

  // Reconnecting reaches the kernel's backlog of the paused Redis: connected
  // in TCP's sense only, so never up, and the silence drops it again.
  std::this_thread::sleep_for(800ms);
  EXPECT_FALSE(a->stats().connected);
  EXPECT_EQ(a->stats().reconnects, before.reconnects);

  redis.resume();
  ASSERT_TRUE(eventually([&] { return a->stats().connected && b->stats().connected; }, 5s));
  EXPECT_GE(a->stats().reconnects, before.reconnects + 2);  // both connections came back
  await_subscribed(*a, "room", {&at_a, &at_b});
  ASSERT_TRUE(b->publish("room", "after the pause"));
  EXPECT_EQ(at_a.wait_for(1, "after the pause").size(), 1u);
  EXPECT_EQ(at_b.wait_for(1, "after the pause").size(), 1u);
}

TEST_F(two_instances, ASlowInstanceDoesNotSlowTheOthers) {
  // c is a third instance whose sink takes 5 ms per event.
  bus_collector at_c;
  auto c = stet::detail::make_redis_bus(options_for(redis));
  c->start(at_c.sink([] { std::this_thread::sleep_for(5ms); }));
  c->watch("room");
  await_subscribed(*a, "room", {&at_c});

  constexpr int n = 200;
  const auto begin = std::chrono::steady_clock::now();
  for (int i = 0; i < n; ++i) ASSERT_TRUE(a->publish("room", "fan " + std::to_string(i)));
  ASSERT_EQ(at_b.wait_for(n, "fan ").size(), static_cast<std::size_t>(n));
  const auto fast = std::chrono::steady_clock::now() - begin;
  ASSERT_EQ(at_c.wait_for(n, "fan ", 10s).size(), static_cast<std::size_t>(n));
  const auto slow = std::chrono::steady_clock::now() - begin;
  EXPECT_GE(slow, 900ms);  // 200 x 5 ms, give or take the first events
  EXPECT_LT(fast * 3, slow) << "b waited for c";
}

}  // namespace
