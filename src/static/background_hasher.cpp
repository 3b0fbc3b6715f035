#include "static/background_hasher.hpp"

#include "static/content_hash.hpp"

#include <sys/stat.h>

namespace stet::detail {

background_hasher::~background_hasher() {
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
    stop_reading_.store(true, std::memory_order_relaxed);
    queue_.clear();
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void background_hasher::submit(std::shared_ptr<const file_entry> entry, std::atomic<std::uint64_t>& done) {
  {
    const std::lock_guard lock(mutex_);
    queue_.push_back(job{std::move(entry), &done});
    if (!thread_.joinable()) thread_ = std::thread([this] { run(); });
  }
  wake_.notify_one();
}

void background_hasher::run() noexcept {
  std::unique_lock lock(mutex_);
  for (;;) {
    wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
    if (stopping_) return;
    job next = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    const file_entry& e = *next.entry;
    const int fd = e.file->fd();
    const auto digest = hash_file(fd, e.id.size, &stop_reading_);
    // The descriptor follows the inode, so an in-place edit during the read
    // would mix versions: publish only if the file is still the version the
    // entry describes. A changed file gets a new entry, hashed afresh.
    struct ::stat st {};
    const bool unchanged = ::fstat(fd, &st) == 0 && file_identity::of(st) == e.id;
    {
      const std::lock_guard hash_lock(e.hash_mutex);
      if (digest && unchanged) {
        e.hash = *digest;
        e.hash_ready.store(true, std::memory_order_release);
        next.done->fetch_add(1, std::memory_order_relaxed);
      }
      e.hash_queued = false;
    }
    lock.lock();
  }
}

}  // namespace stet::detail
