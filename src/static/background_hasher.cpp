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

bool background_hasher::submit(std::shared_ptr<const file_entry> entry, std::atomic<std::uint64_t>& done) {
  return post([this, entry = std::move(entry), &done](const std::atomic<bool>&) { hash(*entry, done); });
}

bool background_hasher::post(job work) {
  {
    const std::lock_guard lock(mutex_);
    if (queue_.size() >= max_queued_jobs) {
      refused_.fetch_add(1, std::memory_order_relaxed);
      return false;
    }
    queue_.push_back(std::move(work));
    if (!thread_.joinable()) thread_ = std::thread([this] { run(); });
  }
  wake_.notify_one();
  return true;
}

void background_hasher::run() noexcept {
  std::unique_lock lock(mutex_);
  for (;;) {
    wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
    if (stopping_) return;
    job next = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    next(stop_reading_);
    lock.lock();
  }
}

void background_hasher::hash(const file_entry& e, std::atomic<std::uint64_t>& done) noexcept {
  const int fd = e.file->fd();
  const auto digest = hash_file(fd, e.id.size, &stop_reading_);
  // The descriptor follows the inode, so an in-place edit during the read
  // would mix versions: publish only if the file is still the version the
  // entry describes. A changed file gets a new entry, hashed afresh.
  struct ::stat st {};
  const bool unchanged = ::fstat(fd, &st) == 0 && file_identity::of(st) == e.id;
  const std::lock_guard hash_lock(e.hash_mutex);
  if (digest && unchanged) {
    e.hash = *digest;
    e.hash_ready.store(true, std::memory_order_release);
    done.fetch_add(1, std::memory_order_relaxed);
  }
  e.hash_queued = false;
}

}  // namespace stet::detail
