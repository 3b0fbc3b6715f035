#pragma once
// Timeouts without a timer per connection. Each kind of timeout has one
// intrusive FIFO list per worker; since every entry of a list has the same
// duration, appending keeps the list sorted by deadline. Re-arming is an O(1)
// unlink + append, and the worker's single timer only looks at list heads.

#include <chrono>
#include <cstdint>

namespace stet::detail {

using steady = std::chrono::steady_clock;

enum class timeout_kind : std::uint8_t { header, body, idle, write, linger, handler, first_byte };
inline constexpr std::size_t timeout_kind_count = 7;

class deadline_list;

/// What a deadline list times out: a connection, or a connection still
/// reading its PROXY protocol header. Called on the worker's thread.
class deadline_target {
 public:
  /// `kind`'s deadline passed (the hook is already off its list).
  virtual void on_timeout(timeout_kind kind) = 0;
  /// Whether evict() may close this to make room for a new client at
  /// max_connections: it waits for input, and the kernel holds no bytes from
  /// it (those would be a request on its way, not a client that sends nothing).
  virtual bool evictable() noexcept = 0;
  /// Closes it (after evictable() said yes), counting why.
  virtual void evict() noexcept = 0;

 protected:
  ~deadline_target() = default;
};

/// Embedded in whatever can time out; `owner` says which list holds it, if any.
struct deadline_hook {
  deadline_hook* prev = nullptr;
  deadline_hook* next = nullptr;
  deadline_list* owner = nullptr;
  steady::time_point deadline{};
  deadline_target* target = nullptr;  // the object to notify
};

class deadline_list {
 public:
  deadline_list(timeout_kind kind, steady::duration timeout) noexcept : kind_(kind), timeout_(timeout) {
    head_.prev = head_.next = &head_;
  }
  deadline_list(const deadline_list&) = delete;
  deadline_list& operator=(const deadline_list&) = delete;

  timeout_kind kind() const noexcept { return kind_; }
  steady::duration timeout() const noexcept { return timeout_; }

  /// Moves `h` (from whichever list holds it) to the tail, due at now + timeout.
  steady::time_point push(deadline_hook& h, steady::time_point now) noexcept {
    unlink(h);
    h.deadline = now + timeout_;
    h.owner = this;
    h.prev = head_.prev;
    h.next = &head_;
    head_.prev->next = &h;
    head_.prev = &h;
    return h.deadline;
  }

  static void unlink(deadline_hook& h) noexcept {
    if (h.owner == nullptr) return;
    h.prev->next = h.next;
    h.next->prev = h.prev;
    h.prev = h.next = nullptr;
    h.owner = nullptr;
  }

  /// The entry due first, or null.
  deadline_hook* front() noexcept { return head_.next == &head_ ? nullptr : head_.next; }
  /// The entry due after `h` (which this list holds), or null.
  deadline_hook* after(const deadline_hook& h) noexcept { return h.next == &head_ ? nullptr : h.next; }

 private:
  timeout_kind kind_;
  steady::duration timeout_;
  deadline_hook head_;
};

}  // namespace stet::detail
