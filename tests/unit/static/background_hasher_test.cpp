// The static files' background thread (large files' hashes, larger files'
// compressed variants): its queue is bounded, because clients choose what is
// asked for and a queued job keeps its entry's bytes alive past eviction.

#include "static/background_hasher.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace {

using stet::detail::background_hasher;

TEST(BackgroundHasher, AFullQueueRefusesAndCountsWhatItCannotHold) {
  std::mutex mutex;
  std::condition_variable changed;
  bool release = false;
  std::atomic<bool> started{false};
  std::atomic<int> ran{0};
  {
    background_hasher h;
    // The first job holds the thread, so everything after it waits in the queue.
    ASSERT_TRUE(h.post([&](const std::atomic<bool>&) {
      started = true;
      std::unique_lock lock(mutex);
      changed.wait(lock, [&] { return release; });
      ++ran;
    }));
    while (!started) std::this_thread::yield();
    std::size_t accepted = 0;
    for (int i = 0; i < 100; ++i) accepted += h.post([&](const std::atomic<bool>&) { ++ran; }) ? 1 : 0;
    EXPECT_EQ(accepted, background_hasher::max_queued_jobs);
    EXPECT_EQ(h.refused(), 100 - background_hasher::max_queued_jobs);
    {
      const std::lock_guard lock(mutex);
      release = true;
    }
    changed.notify_all();
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (ran.load() < static_cast<int>(accepted) + 1 && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    EXPECT_EQ(ran.load(), static_cast<int>(accepted) + 1);
    // Room again once the queue drained.
    EXPECT_TRUE(h.post([](const std::atomic<bool>&) {}));
  }
}

}  // namespace
