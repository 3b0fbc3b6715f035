#include "net/server/deadline_set.hpp"

#include <algorithm>

namespace stet::detail {
namespace {

template <std::size_t... k>
std::array<deadline_list, timeout_kind_count> make_lists(const std::array<steady::duration, timeout_kind_count>& d,
                                                         std::index_sequence<k...> /*kinds*/) {
  return {{deadline_list(static_cast<timeout_kind>(k), d[k])...}};
}

}  // namespace

deadline_set::deadline_set(asio::io_context& io, const std::array<steady::duration, timeout_kind_count>& timeouts)
    : kinds_(make_lists(timeouts, std::make_index_sequence<timeout_kind_count>{})), tick_(io) {}

void deadline_set::arm_for(deadline_hook& hook, steady::duration d, steady::time_point now) noexcept {
  deadline_list* list = nullptr;
  for (auto& [duration, l] : by_duration_) {
    if (duration == d) list = l.get();
  }
  if (list == nullptr) {
    try {
      list = by_duration_.emplace_back(d, std::make_unique<deadline_list>(timeout_kind::idle, d)).second.get();
    } catch (...) {
      if (by_duration_.empty()) return;
      list = by_duration_.front().second.get();  // a list of another length beats none
    }
  }
  const steady::time_point due = list->push(hook, now);
  try {
    schedule_if_sooner(due);
  } catch (...) {  // the timer could not be set: the next tick, or the next arm, will see it
  }
}

void deadline_set::cancel() noexcept {
  tick_.cancel();
  tick_due_ = steady::time_point::max();
}

template <class Visit>
void deadline_set::for_each_list(Visit&& visit) {
  for (deadline_list& list : kinds_) visit(list);
  // By index: a timeout may arm a hook for a new duration, adding a list
  // (a range-for's iterators would not survive the vector growing).
  // NOLINTNEXTLINE(modernize-loop-convert)
  for (std::size_t i = 0; i < by_duration_.size(); ++i) visit(*by_duration_[i].second);
}

void deadline_set::schedule(steady::time_point due) {
  tick_due_ = due;
  tick_.expires_at(due);
  tick_.async_wait([this](boost::system::error_code ec) {
    if (ec != asio::error::operation_aborted) on_tick();
  });
}

// Only list heads are examined: every list is sorted by deadline. Entries that
// were re-armed since the timer was set have simply moved further back.
void deadline_set::on_tick() {
  tick_due_ = steady::time_point::max();
  const steady::time_point now = steady::now();
  for_each_list([now](deadline_list& list) {
    while (deadline_hook* h = list.front()) {
      if (h->deadline > now) break;
      deadline_list::unlink(*h);
      h->target->on_timeout(list.kind());
    }
  });
  // on_timeout() may have armed new deadlines (and a tick) itself.
  steady::time_point next = steady::time_point::max();
  for_each_list([&next](deadline_list& list) {
    if (deadline_hook* h = list.front()) next = std::min(next, h->deadline);
  });
  if (next != steady::time_point::max() && next < tick_due_) schedule(next);
}

}  // namespace stet::detail
