#include "static/root_dir.hpp"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace stet::detail {
namespace {

std::shared_ptr<const root_state> resolve(const std::string& configured, int& error) noexcept {
  char real[PATH_MAX];
  if (::realpath(configured.c_str(), real) == nullptr) {
    error = errno;
    return nullptr;
  }
  const int fd = ::open(real, O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    error = errno;
    return nullptr;
  }
  struct ::stat st {};
  if (::fstat(fd, &st) != 0) {
    error = errno;
    ::close(fd);
    return nullptr;
  }
  try {
    auto state = std::make_shared<root_state>();
    state->real = real;
    state->fd = fd;
    state->dev = static_cast<std::uint64_t>(st.st_dev);
    state->ino = static_cast<std::uint64_t>(st.st_ino);
    return state;
  } catch (...) {
    ::close(fd);
    error = ENOMEM;
    return nullptr;
  }
}

// The path `fd` refers to, read back from /proc; empty when unavailable.
std::string_view fd_path(int fd, path_buffer& out) noexcept {
  path_buffer link{};
  const int n = std::snprintf(link.data(), link.size(), "/proc/self/fd/%d", fd);
  if (n <= 0) return {};
  const ssize_t len = ::readlink(link.data(), out.data(), out.size() - 1);
  if (len <= 0) return {};
  return {out.data(), static_cast<std::size_t>(len)};
}

bool is_below(std::string_view path, std::string_view root) noexcept {
  if (root == "/" || path == root) return !path.empty();
  return path.size() > root.size() && path.starts_with(root) && path[root.size()] == '/';
}

}  // namespace

bool join_path(std::string_view dir, std::string_view relative, std::string_view suffix, path_buffer& out) noexcept {
  const std::size_t total = dir.size() + 1 + relative.size() + suffix.size();
  if (total + 1 > out.size()) return false;
  char* p = out.data();
  p += dir.copy(p, dir.size());
  *p++ = '/';
  p += relative.copy(p, relative.size());
  p += suffix.copy(p, suffix.size());
  *p = '\0';
  return true;
}

root_state::~root_state() {
  if (fd >= 0) ::close(fd);
}

root_dir::root_dir(std::string configured)
    : configured_(std::filesystem::absolute(std::filesystem::path(std::move(configured))).lexically_normal()) {
  while (configured_.size() > 1 && configured_.back() == '/') configured_.pop_back();
  int error = 0;
  state_ = resolve(configured_, error);
  if (!state_) throw std::system_error(error, std::generic_category(), "stet::static_files root " + configured_);
}

std::shared_ptr<const root_state> root_dir::current() noexcept {
  struct ::stat st {};
  const bool present = ::stat(configured_.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
  const std::lock_guard lock(mutex_);
  if (!present) return nullptr;
  if (state_ && state_->dev == static_cast<std::uint64_t>(st.st_dev) &&
      state_->ino == static_cast<std::uint64_t>(st.st_ino)) {
    return state_;
  }
  int error = 0;
  if (auto fresh = resolve(configured_, error)) state_ = std::move(fresh);
  return state_;
}

int root_dir::open_below(const root_state& root, std::string_view relative, int flags, bool allow_escape) noexcept {
  path_buffer rel{};
  if (relative.size() + 1 > rel.size()) return -ENAMETOOLONG;
  relative.copy(rel.data(), relative.size());
  rel[relative.size()] = '\0';
  const char* name = relative.empty() ? "." : rel.data();
  flags |= O_CLOEXEC;
  if (allow_escape) {
    const int fd = ::openat(root.fd, name, flags);
    return fd >= 0 ? fd : -errno;
  }
  if (have_openat2_.load(std::memory_order_relaxed)) {
    ::open_how how{};
    how.flags = static_cast<std::uint64_t>(flags);
    how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
    const long fd = ::syscall(SYS_openat2, root.fd, name, &how, sizeof how);
    if (fd >= 0) return static_cast<int>(fd);
    if (errno != ENOSYS) return -errno;
    have_openat2_.store(false, std::memory_order_relaxed);
  }
  // No openat2 (old kernel, or a seccomp filter that hides it): resolve with
  // O_PATH, which opens nothing for reading, check where that landed, and only
  // then open for real, insisting on the same inode.
  const int probe = ::openat(root.fd, name, O_PATH | O_CLOEXEC);
  if (probe < 0) return -errno;
  path_buffer where{};
  struct ::stat probed {};
  const bool inside = is_below(fd_path(probe, where), root.real) && ::fstat(probe, &probed) == 0;
  ::close(probe);
  if (!inside) return -EXDEV;
  const int fd = ::openat(root.fd, name, flags);
  if (fd < 0) return -errno;
  struct ::stat opened {};
  if (::fstat(fd, &opened) != 0 || opened.st_dev != probed.st_dev || opened.st_ino != probed.st_ino) {
    ::close(fd);
    return -EXDEV;
  }
  return fd;
}

}  // namespace stet::detail
