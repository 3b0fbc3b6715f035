#pragma once
// What lets a static cache hit skip its stat: one inotify instance per
// file_store, read by a thread of its own, turned into an epoch, a counter
// bumped after every event that may change what a cached path leads to.
//
// The rule (file_store): an entry is stamped with the epoch read *before*
// its file's watches were added and the file was read (or, on a hit that
// was checked with a stat, before that stat). A hit whose stamp equals the
// current epoch is served without a system call; any other hit is checked
// with a stat, as without watches, and stamped again. So an edit that lands
// after the stamp was taken, even between adding the watch and reading the
// file, bumps the epoch past the stamp, and an edit before the watch is
// seen by the read itself. Nothing is invalidated by name: the epoch is one
// counter, and an event costs each cached entry one stat on its next hit.
//
// Watched, for each loaded path: every directory from "/" to the file, and
// the file. Directories at or below the root count every event (an entry
// added, removed or renamed, a child written); those above the root count
// only events that name the next directory down (the root re-pointed or
// renamed), or /tmp alone would bump the epoch all day. The file's own watch
// sees writes through any hard link. Events lost by the kernel
// (IN_Q_OVERFLOW) bump the epoch too: every entry is then checked by stat once.
//
// Where a watch cannot be added (the kernel's or this watcher's limit, a
// file system without inotify), the entry is not stamped and every hit is
// checked with a stat. Not seen: a mount placed over a watched directory.
//
// An edit reaches the cache when the watcher thread reads its event: the
// kernel queues it before the writing call returns, and the thread wakes
// for it (sync() reads what is queued at once, for tests).

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>

namespace stet::detail {

class file_watch {
 public:
  /// A stamp no epoch ever equals: the entry is checked with a stat on every hit.
  static constexpr std::uint64_t unwatched = ~std::uint64_t{0};

  /// `max_watches` bounds the watches this instance adds (0: none, every hit
  /// stats); `threaded`: false leaves the reading to sync() (tests).
  explicit file_watch(std::size_t max_watches, bool threaded = true);
  ~file_watch();
  file_watch(const file_watch&) = delete;
  file_watch& operator=(const file_watch&) = delete;

  std::uint64_t epoch() const noexcept { return epoch_.load(std::memory_order_acquire); }
  /// Whether an entry stamped `stamp` is known unchanged since: a load, no system call.
  bool unchanged_since(std::uint64_t stamp) const noexcept { return stamp == epoch(); }

  /// Watches every directory from "/" to `root/relative` and the file itself
  /// (`root` is absolute, `relative` has no "." or ".." segment). False when
  /// one of them could not be watched: the caller then stamps `unwatched`.
  bool watch(std::string_view root, std::string_view relative);

  /// Reads and applies every event queued now (the thread does this as events come).
  void sync();

  std::uint64_t overflows() const noexcept { return overflows_.load(std::memory_order_relaxed); }
  std::uint64_t events() const noexcept { return events_.load(std::memory_order_relaxed); }

 private:
  bool add(const std::string& path, std::string_view only_name);
  bool drain_locked();
  void run();

  int fd_ = -1;
  int stop_fd_ = -1;  // an eventfd the destructor writes
  const std::size_t max_watches_;
  std::atomic<std::uint64_t> epoch_{0};
  std::atomic<std::uint64_t> overflows_{0};
  std::atomic<std::uint64_t> events_{0};
  std::mutex mutex_;  // the filters, and reading the inotify descriptor
  /// Per watch descriptor: the one name whose events count (a directory
  /// above the root), or empty: every event counts.
  std::unordered_map<int, std::string> filters_;
  std::thread thread_;
};

}  // namespace stet::detail
