// The library's reserved topics on a user's bus: what arrives on one goes to
// its receiver and never to the hub's sink; a user can neither publish on a
// reserved topic, nor unwatch it (leaving a "room" of that name), nor replay
// its history. The inner bus here records what it is asked.
#include "pubsub/internal_topics.hpp"

#include "pubsub/in_process_bus.hpp"
#include "support/bus_collector.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

namespace {

using stet::detail::bus;
using stet::detail::bus_replay;
using stet::detail::internal_topics;

constexpr std::string_view reserved = "stet:internal:test";

// An in-process bus that also keeps the topics it is told to watch and unwatch.
class recording_bus final : public bus {
 public:
  explicit recording_bus(std::vector<std::string>& log) : log_(log) {}
  void start(sink deliver) override { inner_.start(std::move(deliver)); }
  void stop() noexcept override { inner_.stop(); }
  void watch(std::string_view topic) override { log_.push_back("watch " + std::string(topic)); }
  void unwatch(std::string_view topic) noexcept override { log_.push_back("unwatch " + std::string(topic)); }
  bool publish(std::string_view topic, std::string_view data) override { return inner_.publish(topic, data); }
  void replay(std::string_view topic, std::string_view last_id, std::size_t limit, replay_done done) override {
    inner_.replay(topic, last_id, limit, std::move(done));
  }
  stet::detail::bus_stats stats() const noexcept override { return inner_.stats(); }

 private:
  std::vector<std::string>& log_;
  stet::detail::in_process_bus inner_;
};

struct InternalTopics : ::testing::Test {
  void SetUp() override {
    topics.add_receiver(std::string(reserved), [this](std::string_view data) { received.emplace_back(data); });
    topics.start(hub.sink());
  }
  void TearDown() override { topics.stop(); }

  std::vector<std::string> asked;
  internal_topics topics{std::make_unique<recording_bus>(asked)};
  stet::test::bus_collector hub;
  std::vector<std::string> received;
};

TEST_F(InternalTopics, TheReceiverGetsItsTopicAndTheHubNeverDoes) {
  EXPECT_EQ(asked, std::vector<std::string>{"watch stet:internal:test"});
  ASSERT_TRUE(topics.publish_internal(reserved, "one"));
  ASSERT_TRUE(topics.publish("room", "hello"));
  EXPECT_EQ(received, std::vector<std::string>{"one"});
  const auto seen = hub.wait_for(1, "hello");
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(hub.snapshot().size(), 1u);  // "one" never reached the hub
}

TEST_F(InternalTopics, UsersCannotPublishWatchOrReplayAReservedTopic) {
  EXPECT_FALSE(topics.publish(reserved, "forged"));
  EXPECT_FALSE(topics.publish("stet:internal:other", "forged"));
  EXPECT_TRUE(received.empty());
  topics.watch(reserved);
  topics.unwatch(reserved);  // a user's room of that name empties: the library keeps listening
  topics.watch("room");
  EXPECT_EQ(asked, (std::vector<std::string>{"watch stet:internal:test", "watch room"}));
  ASSERT_TRUE(topics.publish_internal(reserved, "still here"));
  EXPECT_EQ(received, std::vector<std::string>{"still here"});
  bool answered = false;
  topics.replay(reserved, "0", 10, [&answered](const bus_replay& r) {
    answered = true;
    EXPECT_TRUE(r.events.empty());
  });
  EXPECT_TRUE(answered);
}

}  // namespace
