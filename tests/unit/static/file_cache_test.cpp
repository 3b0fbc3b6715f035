// The sharded LRU on its own: budget and entry limits as running counters,
// single-flight loads.
#include "static/file_cache.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <latch>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace {

using stet::detail::file_cache;
using stet::detail::file_entry;
using stet::detail::file_identity;

std::shared_ptr<const file_entry> entry_of(std::uint64_t size, std::uint64_t ino = 1) {
  auto e = std::make_shared<file_entry>();
  e->id.ino = ino;
  e->id.size = size;
  e->charge = size;
  e->bytes = std::make_shared<const std::string>(size, 'x');
  return e;
}

void put(file_cache& cache, const std::string& path, std::shared_ptr<const file_entry> e) {
  const auto k = file_cache::make_key(path);
  const auto claim = cache.claim_load(k, e->id);
  ASSERT_TRUE(claim.owner);
  cache.finish_load(k, std::move(e), true);
}

TEST(FileCache, FindsWhatWasInserted) {
  file_cache cache(1000, 10);
  put(cache, "a", entry_of(100));
  const auto found = cache.find(file_cache::make_key("a"));
  ASSERT_TRUE(found);
  EXPECT_EQ(found->id.size, 100u);
  EXPECT_FALSE(cache.find(file_cache::make_key("b")));
  EXPECT_EQ(cache.bytes(), 100u);
  EXPECT_EQ(cache.entries(), 1u);
}

TEST(FileCache, ReplacingAnEntryGivesBackItsCharge) {
  file_cache cache(1000, 10);
  put(cache, "a", entry_of(100, 1));
  put(cache, "a", entry_of(300, 2));
  EXPECT_EQ(cache.bytes(), 300u);
  EXPECT_EQ(cache.entries(), 1u);
  EXPECT_EQ(cache.sum_of_charges(), 300u);
}

TEST(FileCache, EraseOnlyDropsTheStaleVersion) {
  file_cache cache(1000, 10);
  put(cache, "a", entry_of(100, 1));
  const auto k = file_cache::make_key("a");
  const auto held = cache.find(k);
  put(cache, "a", entry_of(200, 2));
  cache.erase(k, held.get());  // already replaced: nothing happens
  EXPECT_EQ(cache.entries(), 1u);
  cache.erase(k, cache.find(k).get());
  EXPECT_EQ(cache.entries(), 0u);
  EXPECT_EQ(cache.bytes(), 0u);
}

TEST(FileCache, EvictsLeastRecentlyUsedForTheBudget) {
  // One shard's worth of keys would make this exact; with 16 shards the
  // victim is the LRU tail of the inserting shard first. Keys in one shard:
  file_cache cache(300, 100);
  std::vector<std::string> same_shard;
  const std::size_t target = file_cache::make_key("k0").hash % file_cache::shard_count;
  for (int i = 0; same_shard.size() < 4; ++i) {
    std::string key = "k" + std::to_string(i);
    if (file_cache::make_key(key).hash % file_cache::shard_count == target) same_shard.push_back(key);
  }
  put(cache, same_shard[0], entry_of(100));
  put(cache, same_shard[1], entry_of(100));
  put(cache, same_shard[2], entry_of(100));
  cache.find(file_cache::make_key(same_shard[0]));  // now [1] is the least recently used
  put(cache, same_shard[3], entry_of(100));
  EXPECT_TRUE(cache.find(file_cache::make_key(same_shard[0])));
  EXPECT_FALSE(cache.find(file_cache::make_key(same_shard[1])));
  EXPECT_TRUE(cache.find(file_cache::make_key(same_shard[2])));
  EXPECT_TRUE(cache.find(file_cache::make_key(same_shard[3])));
  EXPECT_EQ(cache.bytes(), 300u);
}

TEST(FileCache, VariantChargesCountAgainstTheBudgetAndLeaveWithTheEntry) {
  file_cache cache(1000, 10);
  put(cache, "a", entry_of(400, 1));
  put(cache, "b", entry_of(400, 2));
  const auto k = file_cache::make_key("a");
  const auto a = cache.find(k);
  EXPECT_TRUE(cache.holds(k, a.get()));
  EXPECT_TRUE(cache.add_variant_charge(k, a.get(), 150));
  EXPECT_EQ(cache.bytes(), 950u);
  EXPECT_EQ(cache.variant_bytes(), 150u);
  EXPECT_EQ(cache.sum_of_charges(), 950u);
  // No room: "b" is evicted for it, never "a" itself.
  EXPECT_TRUE(cache.add_variant_charge(k, a.get(), 100));
  EXPECT_FALSE(cache.find(file_cache::make_key("b")));
  EXPECT_EQ(cache.bytes(), 650u);
  // Room only by evicting the entry the variant is for: refused, nothing counted.
  EXPECT_FALSE(cache.add_variant_charge(k, a.get(), 400));
  EXPECT_TRUE(cache.holds(k, a.get()));
  EXPECT_EQ(cache.bytes(), 650u);
  // A replaced entry is not charged, and the old one's variants leave with it.
  put(cache, "a", entry_of(100, 3));
  EXPECT_FALSE(cache.holds(k, a.get()));
  EXPECT_FALSE(cache.add_variant_charge(k, a.get(), 10));
  EXPECT_EQ(cache.bytes(), 100u);
  EXPECT_EQ(cache.variant_bytes(), 0u);
  EXPECT_EQ(cache.sum_of_charges(), 100u);
}

TEST(FileCache, EntryLimitAndOversizedEntries) {
  file_cache cache(10'000, 3);
  for (int i = 0; i < 10; ++i) put(cache, "e" + std::to_string(i), entry_of(10));
  EXPECT_EQ(cache.entries(), 3u);
  EXPECT_EQ(cache.bytes(), 30u);
  put(cache, "huge", entry_of(20'000));  // over the whole budget: not cached
  EXPECT_FALSE(cache.find(file_cache::make_key("huge")));
  EXPECT_EQ(cache.sum_of_charges(), cache.bytes());
}

TEST(FileCache, BudgetHoldsUnderConcurrentChurn) {
  constexpr std::uint64_t budget = 64 * 1024;
  file_cache cache(budget, 1000);
  std::atomic<bool> over{false};
  std::atomic<bool> stop{false};
  std::thread watcher([&] {
    while (!stop.load()) {
      if (cache.bytes() > budget) over = true;
    }
  });
  std::vector<std::thread> writers;
  for (unsigned t = 0; t < 4; ++t) {
    writers.emplace_back([&, t] {
      std::mt19937 rng(t);
      for (int i = 0; i < 3000; ++i) {
        const std::string path = "f" + std::to_string(rng() % 200);
        const auto size = 1000 + rng() % 9000;
        const auto k = file_cache::make_key(path);
        auto e = entry_of(size, rng());
        const auto claim = cache.claim_load(k, e->id);
        if (claim.owner) cache.finish_load(k, std::move(e), true);
      }
    });
  }
  for (auto& w : writers) w.join();
  stop = true;
  watcher.join();
  EXPECT_FALSE(over.load());
  EXPECT_LE(cache.bytes(), budget);
  EXPECT_EQ(cache.bytes(), cache.sum_of_charges());
}

TEST(FileCache, ConcurrentClaimsHaveOneOwner) {
  file_cache cache(1 << 20, 100);
  const auto k = file_cache::make_key("shared");
  const file_identity want{0, 7, 50, 0, 0};
  std::atomic<int> owners{0};
  std::atomic<int> served{0};
  std::vector<std::thread> threads;
  std::latch start(8);
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      start.arrive_and_wait();
      const auto claim = cache.claim_load(k, want);
      if (claim.owner) {
        ++owners;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        cache.finish_load(k, entry_of(50, 7), false);  // even uncached, waiters get it
        ++served;
      } else if (claim.ready) {
        ++served;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(owners.load(), 1);
  EXPECT_EQ(served.load(), 8);
}

}  // namespace
