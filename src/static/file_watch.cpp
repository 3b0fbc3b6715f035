#include "static/file_watch.hpp"

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

namespace stet::detail {
namespace {

// Everything that changes what a path leads to or what the file holds. Not
// IN_ACCESS, IN_OPEN or IN_CLOSE_NOWRITE: the cache's own reads make those.
constexpr std::uint32_t entry_mask =
    IN_ATTRIB | IN_MOVED_FROM | IN_MOVED_TO | IN_CREATE | IN_DELETE | IN_DELETE_SELF | IN_MOVE_SELF;
constexpr std::uint32_t watch_mask = entry_mask | IN_MODIFY | IN_CLOSE_WRITE;
// A directory above the root: only what changes where a name leads (a
// rename, a re-pointed symlink, a chmod), not the writes of its files, which
// in /tmp would wake the watcher for every other program's temporary file.

// The segments of `path`, without empty ones.
std::vector<std::string_view> segments(std::string_view path) {
  std::vector<std::string_view> out;
  while (!path.empty()) {
    const std::size_t slash = path.find('/');
    const std::string_view part = path.substr(0, slash);
    if (!part.empty()) out.push_back(part);
    if (slash == std::string_view::npos) break;
    path.remove_prefix(slash + 1);
  }
  return out;
}

}  // namespace

file_watch::file_watch(std::size_t max_watches, bool threaded) : max_watches_(max_watches) {
  if (max_watches_ == 0) return;
  fd_ = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (fd_ < 0 || !threaded) return;
  stop_fd_ = ::eventfd(0, EFD_CLOEXEC);
  if (stop_fd_ < 0) {
    // Without a way to stop a thread there is none: no watches, a stat per hit.
    ::close(fd_);
    fd_ = -1;
    return;
  }
  thread_ = std::thread([this] { run(); });
}

file_watch::~file_watch() {
  if (thread_.joinable()) {
    const std::uint64_t one = 1;
    [[maybe_unused]] const ssize_t n = ::write(stop_fd_, &one, sizeof one);
    thread_.join();
  }
  if (stop_fd_ >= 0) ::close(stop_fd_);
  if (fd_ >= 0) ::close(fd_);
}

bool file_watch::add(const std::string& path, std::string_view only_name) {
  if (filters_.size() >= max_watches_) return false;
  // IN_MASK_ADD: a directory met in both roles keeps the wider mask.
  const int wd = ::inotify_add_watch(fd_, path.c_str(), (only_name.empty() ? watch_mask : entry_mask) | IN_MASK_ADD);
  if (wd < 0) return false;
  const auto [it, fresh] = filters_.try_emplace(wd, only_name);
  // The same directory in two roles (reached again through a symlink below
  // the root): every event counts.
  if (!fresh && it->second != only_name) it->second.clear();
  return true;
}

// Each call re-adds watches that exist already (the kernel answers with the
// same descriptor): a renamed-over file or directory is a new inode, which
// a memo of watched paths would skip. Only loads (misses) call this.
bool file_watch::watch(std::string_view root, std::string_view relative) {
  const std::lock_guard lock(mutex_);
  if (fd_ < 0) return false;
  const std::vector<std::string_view> above = segments(root);
  std::string path = "/";
  bool all = true;
  for (const std::string_view next : above) {
    all = add(path, next) && all;
    if (path.size() > 1) path += '/';
    path += next;
  }
  all = add(path, {}) && all;
  for (const std::string_view part : segments(relative)) {
    if (path.size() > 1) path += '/';
    path += part;
    all = add(path, {}) && all;
  }
  return all;
}

bool file_watch::drain_locked() {
  alignas(inotify_event) char buffer[8192];
  bool changed = false;
  for (;;) {
    const ssize_t n = ::read(fd_, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    for (ssize_t at = 0; at < n;) {
      inotify_event event{};
      std::memcpy(&event, buffer + at, sizeof event);
      const char* name = buffer + at + sizeof event;
      at += static_cast<ssize_t>(sizeof event + event.len);
      events_.fetch_add(1, std::memory_order_relaxed);
      if ((event.mask & IN_Q_OVERFLOW) != 0) {
        overflows_.fetch_add(1, std::memory_order_relaxed);
        changed = true;
        continue;
      }
      const auto it = filters_.find(event.wd);
      if ((event.mask & IN_IGNORED) != 0 || it == filters_.end()) {
        // The watch is gone (its inode deleted, its file system unmounted):
        // whatever it covered must be looked at again.
        if (it != filters_.end()) filters_.erase(it);
        changed = true;
        continue;
      }
      if (it->second.empty() || (event.len > 0 && std::string_view(name) == it->second)) changed = true;
    }
  }
  if (changed) epoch_.fetch_add(1, std::memory_order_acq_rel);
  return changed;
}

void file_watch::sync() {
  const std::lock_guard lock(mutex_);
  if (fd_ >= 0) drain_locked();
}

void file_watch::run() {
  pollfd fds[2] = {{fd_, POLLIN, 0}, {stop_fd_, POLLIN, 0}};
  for (;;) {
    if (::poll(fds, 2, -1) < 0 && errno != EINTR) return;
    if ((fds[1].revents & POLLIN) != 0) return;
    if ((fds[0].revents & POLLIN) != 0) {
      const std::lock_guard lock(mutex_);
      drain_locked();
    }
  }
}

}  // namespace stet::detail
