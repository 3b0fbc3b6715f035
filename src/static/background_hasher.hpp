#pragma once
// Hashes large files off the worker threads. A large file is never read on a
// worker (it goes out by sendfile); its content hash, needed only for
// `?_hash=` URLs, is computed here, once per file version, and published into
// the entry. Until then the file is served as if its hash were stale. The
// same thread makes the compressed variants of larger files (post()).
//
// The queue is bounded: clients decide which files are asked for, and a job
// holds its entry (a cached file's bytes among them) alive past eviction, so
// an unbounded queue would let requests pin memory beyond the cache's budget.
// When it is full a job is refused and counted; the caller leaves the work
// undone, to be asked for again by a later request.

#include "static/file_entry.hpp"

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

namespace stet::detail {

class background_hasher {
 public:
  background_hasher() = default;
  /// Stops within one 64 KiB chunk of the file being hashed; queued ones are dropped.
  ~background_hasher();
  background_hasher(const background_hasher&) = delete;
  background_hasher& operator=(const background_hasher&) = delete;

  /// Jobs waiting at most (the one running is not counted).
  static constexpr std::size_t max_queued_jobs = 32;

  /// Queues `entry` (a large file: `entry->file` set). The thread starts on the
  /// first call. `done` is bumped when a hash is published. False when the
  /// queue is full: nothing was queued.
  [[nodiscard]] bool submit(std::shared_ptr<const file_entry> entry, std::atomic<std::uint64_t>& done);
  /// Queues other work for the same thread; it should give up early once
  /// `stop` reads true (the hasher is being destroyed). Must not throw.
  /// False when the queue is full: `work` was not queued.
  using job = std::function<void(const std::atomic<bool>& stop)>;
  [[nodiscard]] bool post(job work);
  /// Jobs refused because the queue was full.
  std::uint64_t refused() const noexcept { return refused_.load(std::memory_order_relaxed); }

 private:
  void run() noexcept;
  void hash(const file_entry& e, std::atomic<std::uint64_t>& done) noexcept;

  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<job> queue_;
  bool stopping_ = false;  // guarded by mutex_
  std::atomic<bool> stop_reading_{false};
  std::atomic<std::uint64_t> refused_{0};
  std::thread thread_;
};

}  // namespace stet::detail
