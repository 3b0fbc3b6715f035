#pragma once
// The static root: the configured path, and the directory it resolves to now.
// Resolved (realpath) once, and again only when the configured path's
// (st_dev, st_ino) changes, so a symlinked root re-pointed at runtime is followed.

#include <array>
#include <atomic>
#include <climits>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

namespace stet::detail {

/// A NUL-terminated path built on the stack.
using path_buffer = std::array<char, PATH_MAX>;

/// `dir` + '/' + `relative` (+ `suffix`) into `out`; false when it does not fit.
bool join_path(std::string_view dir, std::string_view relative, std::string_view suffix, path_buffer& out) noexcept;

/// One resolution of the root: an O_PATH descriptor of the directory, closed
/// with the last holder (loads in flight keep the old one while it is swapped).
struct root_state {
  std::string real;  ///< realpath at resolution time
  int fd = -1;
  std::uint64_t dev = 0;
  std::uint64_t ino = 0;
  ~root_state();
};

class root_dir {
 public:
  /// @throws std::system_error when `configured` is not an openable directory.
  explicit root_dir(std::string configured);

  /// The root as configured: absolute, symlinks not resolved. Hit-path stats go
  /// through it, so they follow a re-pointed root without any extra check.
  const std::string& configured() const noexcept { return configured_; }

  /// The current resolution: one stat of the configured path, and a new
  /// realpath + open only when its (dev, ino) differs from the last one. Null
  /// when the root is gone.
  std::shared_ptr<const root_state> current() noexcept;

  /// Opens `relative` below `root` with `flags` (O_CLOEXEC added). Unless
  /// `allow_escape`, resolution may not leave the root: openat2 with
  /// RESOLVE_BENEATH (Linux >= 5.6), so nothing outside is ever opened. Where
  /// openat2 is unavailable, an O_PATH open (which reads nothing) is checked
  /// against the root through /proc/self/fd before the real open.
  /// Returns the descriptor or -errno (-EXDEV for an escape).
  int open_below(const root_state& root, std::string_view relative, int flags, bool allow_escape) noexcept;

  /// For tests: take the fallback path as if the kernel had no openat2.
  void disable_openat2() noexcept { have_openat2_.store(false, std::memory_order_relaxed); }

 private:
  std::string configured_;
  std::mutex mutex_;  // taken on misses only
  std::shared_ptr<const root_state> state_;
  std::atomic<bool> have_openat2_{true};
};

}  // namespace stet::detail
