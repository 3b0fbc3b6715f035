#pragma once
// A worker's timeouts, HTTP connections' and WebSocket sessions' alike, on one
// timer. Each list holds entries of one duration, so appending keeps it sorted
// and a tick looks only at list heads: one list per HTTP timeout kind (their
// durations come from server_options), and one per distinct WebSocket
// duration (routes may differ), made on first use.

#include "net/asio.hpp"
#include "net/server/deadline_list.hpp"

#include <array>
#include <memory>
#include <utility>
#include <vector>

namespace stet::detail {

class deadline_set {
 public:
  /// `timeouts[k]`: the duration of kind k's list.
  deadline_set(asio::io_context& io, const std::array<steady::duration, timeout_kind_count>& timeouts);
  deadline_set(const deadline_set&) = delete;
  deadline_set& operator=(const deadline_set&) = delete;

  /// Puts `hook` at the tail of kind `kind`'s list, due at now + its duration.
  void arm(deadline_hook& hook, timeout_kind kind, steady::time_point now) {
    schedule_if_sooner(list(kind).push(hook, now));
  }
  /// Puts `hook` on the list of duration `d` (kind idle), due at now + d.
  void arm_for(deadline_hook& hook, steady::duration d, steady::time_point now) noexcept;
  static void disarm(deadline_hook& hook) noexcept { deadline_list::unlink(hook); }

  deadline_list& list(timeout_kind kind) noexcept { return kinds_[static_cast<std::size_t>(kind)]; }
  /// No more ticks (the worker is stopping); armed hooks stay linked.
  void cancel() noexcept;

 private:
  void schedule_if_sooner(steady::time_point due) {
    if (due < tick_due_) schedule(due);
  }
  void schedule(steady::time_point due);
  void on_tick();
  template <class Visit>
  void for_each_list(Visit&& visit);

  std::array<deadline_list, timeout_kind_count> kinds_;
  std::vector<std::pair<steady::duration, std::unique_ptr<deadline_list>>> by_duration_;
  asio::steady_timer tick_;
  steady::time_point tick_due_ = steady::time_point::max();
};

}  // namespace stet::detail
