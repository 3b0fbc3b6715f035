#pragma once
// Hashes large files off the worker threads. A large file is never read on a
// worker (it goes out by sendfile); its content hash, needed only for
// `?_hash=` URLs, is computed here, once per file version, and published into
// the entry. Until then the file is served as if its hash were stale. The
// same thread makes the compressed variants of larger files (post()).

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

  /// Queues `entry` (a large file: `entry->file` set). The thread starts on the
  /// first call. `done` is bumped when a hash is published.
  void submit(std::shared_ptr<const file_entry> entry, std::atomic<std::uint64_t>& done);
  /// Queues other work for the same thread; it should give up early once
  /// `stop` reads true (the hasher is being destroyed). Must not throw.
  using job = std::function<void(const std::atomic<bool>& stop)>;
  void post(job work);

 private:
  void run() noexcept;
  void hash(const file_entry& e, std::atomic<std::uint64_t>& done) noexcept;

  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<job> queue_;
  bool stopping_ = false;  // guarded by mutex_
  std::atomic<bool> stop_reading_{false};
  std::thread thread_;
};

}  // namespace stet::detail
