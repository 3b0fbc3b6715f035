#include "net/ws/websocket_mailbox.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace {

using stet::detail::websocket_counters;
using stet::detail::websocket_mailbox;
using stet::detail::websocket_publication;
namespace asio = stet::detail::asio;
using result = websocket_mailbox::post_result;

std::shared_ptr<const websocket_publication> publication(std::string frame, std::string topic = "t") {
  return std::make_shared<const websocket_publication>(
      websocket_publication{std::move(topic), std::make_shared<const std::string>(std::move(frame))});
}

struct fixture : ::testing::Test {
  asio::io_context io{1};
  websocket_counters counters;
  std::vector<std::string> delivered;

  std::shared_ptr<websocket_mailbox> make(std::size_t messages, std::size_t bytes = 1 << 20) {
    return std::make_shared<websocket_mailbox>(
        io, websocket_mailbox::limits{messages, bytes}, counters,
        [this](const websocket_publication& p) { delivered.push_back(*p.frame); });
  }
  std::uint64_t dropped() const { return counters.mailbox_dropped.load(); }
};

using WebsocketMailbox = fixture;

TEST_F(WebsocketMailbox, RefusesPastTheEntryBoundAndCountsIt) {
  auto box = make(4);
  for (int i = 0; i < 10; ++i) {
    EXPECT_EQ(box->post(publication(std::to_string(i))), i < 4 ? result::posted : result::full) << i;
  }
  EXPECT_EQ(box->size(), 4u);
  EXPECT_EQ(dropped(), 6u);
  EXPECT_EQ(counters.mailbox_messages.load(), 4u);
  EXPECT_EQ(counters.mailbox_peak_messages.load(), 4u);
  io.run();
  EXPECT_EQ(delivered, (std::vector<std::string>{"0", "1", "2", "3"}));
  EXPECT_EQ(box->size(), 0u);
  EXPECT_EQ(counters.mailbox_messages.load(), 0u);
  EXPECT_EQ(counters.mailbox_bytes.load(), 0u);
  // Room again once the worker ran them.
  io.restart();
  EXPECT_EQ(box->post(publication("after")), result::posted);
  io.run();
  EXPECT_EQ(delivered.back(), "after");
  EXPECT_EQ(counters.mailbox_peak_messages.load(), 4u);
}

TEST_F(WebsocketMailbox, RefusesPastTheByteBound) {
  const std::size_t each = websocket_mailbox::entry_bytes + 1 + 300;
  auto box = make(100, 2 * each + 200);
  EXPECT_EQ(box->post(publication(std::string(300, 'a'))), result::posted);
  EXPECT_EQ(box->post(publication(std::string(300, 'b'))), result::posted);
  EXPECT_EQ(box->post(publication(std::string(300, 'c'))), result::full);
  EXPECT_EQ(box->post(publication("d")), result::posted);  // a small one still fits
  EXPECT_EQ(counters.mailbox_bytes.load(), 3 * websocket_mailbox::entry_bytes + 3 + 601);
  EXPECT_LE(counters.mailbox_peak_bytes.load(), 2 * each + 200);
  EXPECT_EQ(dropped(), 1u);
}

TEST_F(WebsocketMailbox, OneMessageLargerThanTheByteBoundFitsWhenNothingWaits) {
  auto box = make(100, 100);
  EXPECT_EQ(box->post(publication(std::string(1000, 'x'))), result::posted);
  EXPECT_EQ(box->post(publication("y")), result::full);
  io.run();
  EXPECT_EQ(delivered.size(), 1u);
}

TEST_F(WebsocketMailbox, TasksAndPublicationsRunInOrder) {
  auto box = make(10);
  EXPECT_EQ(box->post(publication("p1")), result::posted);
  EXPECT_EQ(box->post([this] { delivered.push_back("task"); }, 4), result::posted);
  EXPECT_EQ(box->post(publication("p2")), result::posted);
  io.run();
  EXPECT_EQ(delivered, (std::vector<std::string>{"p1", "task", "p2"}));
}

TEST_F(WebsocketMailbox, UnboundedPostsAreTakenWhenFullAndNotCounted) {
  auto box = make(1);
  EXPECT_EQ(box->post(publication("p")), result::posted);
  EXPECT_EQ(box->post(publication("q")), result::full);
  EXPECT_EQ(box->post_unbounded([this] { delivered.push_back("close"); }), result::posted);
  EXPECT_EQ(box->size(), 1u);
  io.run();
  EXPECT_EQ(delivered, (std::vector<std::string>{"p", "close"}));
}

// The worker's other work does not wait behind the whole backlog: the
// mailbox runs a slice, then queues itself behind what else was posted.
TEST_F(WebsocketMailbox, RunsInSlicesInterleavedWithOtherWork) {
  auto box = make(10'000);
  const std::size_t total = 10 * websocket_mailbox::slice_entries;
  for (std::size_t i = 0; i < total; ++i) ASSERT_EQ(box->post(publication("m")), result::posted);
  std::size_t seen_by_other = 0;
  asio::post(io, [&] { seen_by_other = delivered.size(); });
  io.run();
  EXPECT_EQ(delivered.size(), total);
  EXPECT_EQ(seen_by_other, websocket_mailbox::slice_entries);
}

TEST_F(WebsocketMailbox, CloseDropsWhatWaitsAndRefusesLaterPosts) {
  auto box = make(10);
  auto task_state = std::make_shared<int>(0);
  EXPECT_EQ(box->post(publication("never")), result::posted);
  EXPECT_EQ(box->post([task_state] { *task_state = 1; }, 0), result::posted);
  box->close();
  EXPECT_EQ(task_state.use_count(), 1);  // the task is gone, not kept until the loop dies
  EXPECT_EQ(box->post(publication("late")), result::closed);
  EXPECT_EQ(box->post_unbounded([] {}), result::closed);
  io.run();
  EXPECT_TRUE(delivered.empty());
  EXPECT_EQ(*task_state, 0);
  EXPECT_EQ(counters.mailbox_messages.load(), 0u);
}

// Posters on two threads while the worker runs: every post is either run or
// counted as dropped, and the depth never passed the bound.
TEST_F(WebsocketMailbox, ConcurrentPostersStayWithinTheBound) {
  constexpr std::size_t bound = 32;
  constexpr int per_thread = 20'000;
  std::atomic<std::size_t> ran{0};
  auto box = std::make_shared<websocket_mailbox>(io, websocket_mailbox::limits{bound, 1 << 20}, counters,
                                                 [&ran](const websocket_publication&) { ++ran; });
  auto guard = asio::make_work_guard(io);
  std::thread worker([&] { io.run(); });
  std::atomic<std::size_t> refused{0};
  std::vector<std::thread> posters;
  for (int t = 0; t < 2; ++t) {
    posters.emplace_back([&] {
      const auto p = publication("x");
      for (int i = 0; i < per_thread; ++i) {
        if (box->post(p) == result::full) ++refused;
      }
    });
  }
  for (auto& p : posters) p.join();
  // Then a marker through the same queue: everything before it has run.
  std::atomic<bool> done{false};
  while (box->post_unbounded([&done] { done = true; }) != result::posted) {
  }
  while (!done.load()) std::this_thread::yield();
  guard.reset();
  worker.join();
  EXPECT_EQ(ran.load() + refused.load(), 2u * per_thread);
  EXPECT_EQ(dropped(), refused.load());
  EXPECT_LE(counters.mailbox_peak_messages.load(), bound);
  EXPECT_EQ(box->size(), 0u);
}

}  // namespace
