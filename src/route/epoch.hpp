#pragma once
// Grace periods for frozen route tables. A dispatching thread pins the current
// epoch in its own slot for the length of a dispatch (two atomic stores on a
// cache line nobody else writes); a writer that swapped a table out retires it
// under the epoch it ended, and frees it once no slot still pins that epoch or
// an older one. Readers never lock and never wait; writers never wait either
// (they free what is already safe and leave the rest for the next swap).

#include <cstdint>

namespace stet::detail::epoch {

/// Pins the calling thread's epoch until destroyed; nests (the outermost pin
/// wins). The first pin on a thread registers it (a one-time cost).
class read_section {
 public:
  read_section() noexcept;
  ~read_section();
  read_section(const read_section&) = delete;
  read_section& operator=(const read_section&) = delete;

 private:
  struct slot* slot_;
};

/// Ends the current epoch; returns its number, the tag for objects unlinked
/// before this call.
std::uint64_t advance() noexcept;

/// True when no reader pinned an epoch <= `tag` is still inside its section,
/// so objects retired with `tag` can no longer be reached by anyone.
bool quiescent(std::uint64_t tag) noexcept;

}  // namespace stet::detail::epoch
