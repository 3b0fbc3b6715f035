#include "events/event_queue.hpp"

#include "events/event_format.hpp"
#include "events/event_stats.hpp"
#include "events/event_topics.hpp"

#include <algorithm>
#include <charconv>
#include <utility>

namespace stet::detail {
namespace {

struct id_parts {
  std::uint64_t major = 0;
  std::uint64_t minor = 0;
  bool ok = false;
};

id_parts parse_id(std::string_view id) noexcept {
  id_parts p;
  const char* end = id.data() + id.size();
  const std::from_chars_result major = std::from_chars(id.data(), end, p.major);
  if (major.ec != std::errc() || major.ptr == id.data()) return p;
  if (major.ptr != end) {
    if (*major.ptr != '-') return p;
    const char* start = major.ptr + 1;
    const std::from_chars_result minor = std::from_chars(start, end, p.minor);
    if (minor.ec != std::errc() || minor.ptr != end || minor.ptr == start) return p;
  }
  p.ok = true;
  return p;
}

}  // namespace

int compare_event_ids(std::string_view a, std::string_view b) noexcept {
  const id_parts x = parse_id(a);
  const id_parts y = parse_id(b);
  if (!x.ok || !y.ok) return a.compare(b);  // not a bus id: some order, not a meaningful one
  if (x.major != y.major) return x.major < y.major ? -1 : 1;
  if (x.minor != y.minor) return x.minor < y.minor ? -1 : 1;
  return 0;
}

std::size_t event_queue::add_subscription(std::string_view topic, bool resuming) {
  std::lock_guard lock(mutex_);
  subs_.push_back({std::string(topic), resuming});
  return subs_.size() - 1;
}

// One event larger than the byte bound still goes when nothing waits: else
// such a stream could only ever overflow.
bool event_queue::push_locked(text t) {
  const std::size_t waiting = queue_.size() + held_.size();
  if (waiting >= options_.max_queued_events || (waiting > 0 && bytes_ + t->size() > options_.max_queued_bytes)) {
    overflow_locked();
    return false;
  }
  bytes_ += t->size();
  queue_.push_back(std::move(t));
  sse_stats().events.fetch_add(1, std::memory_order_relaxed);
  return true;
}

void event_queue::overflow_locked() noexcept {
  state_ = state::overflowed;
  queue_.clear();
  held_.clear();
  bytes_ = 0;
  sse_stats().overflow_closed.fetch_add(1, std::memory_order_relaxed);
}

std::function<void()> event_queue::take_wake_locked() noexcept { return std::exchange(wake_, nullptr); }

event_status event_queue::push(text t) {
  std::function<void()> wake;
  event_status s = event_status::queued;
  {
    std::lock_guard lock(mutex_);
    if (state_ != state::open) return event_status::closed;
    if (!push_locked(std::move(t))) s = event_status::overflow;
    wake = take_wake_locked();
  }
  if (wake) wake();
  return s;
}

void event_queue::deliver(std::size_t index, std::string_view id, const text& t) noexcept {
  std::function<void()> wake;
  {
    std::lock_guard lock(mutex_);
    if (state_ != state::open || index >= subs_.size()) return;
    try {
      if (subs_[index].held) {
        // Held events count against the bounds like queued ones.
        const std::size_t waiting = queue_.size() + held_.size();
        if (waiting >= options_.max_queued_events || bytes_ + t->size() > options_.max_queued_bytes) {
          overflow_locked();
        } else {
          held_.push_back({index, std::string(id), t});
          bytes_ += t->size();
          return;  // nothing to write yet
        }
      } else {
        push_locked(t);
      }
    } catch (...) {
      overflow_locked();
    }
    wake = take_wake_locked();
  }
  if (wake) wake();
}

// The replay's events go first; the deliveries held meanwhile follow, less
// those the replay already carried. A replay too large for the queue is cut
// where the queue is full and the stream ends there with a retry hint: the
// client comes back from the last event it got, and the rest follows then.
void event_queue::replayed(std::size_t index, std::string_view last_id, const bus_replay& r) noexcept {
  std::function<void()> wake;
  {
    std::lock_guard lock(mutex_);
    if (state_ != state::open || index >= subs_.size()) return;
    subs_[index].held = false;
    std::string newest(last_id);
    bool cut = r.events.size() >= options_.max_queued_events;
    try {
      if (r.failed || !r.complete) {
        auto gap = std::make_shared<std::string>();
        append_gap_event(*gap, last_id);
        push_locked(std::move(gap));
        sse_stats().gaps.fetch_add(1, std::memory_order_relaxed);
      }
      for (const bus_record& e : r.events) {
        auto t = std::make_shared<std::string>();
        if (!append_event(*t, event{.data = e.data, .id = e.id})) continue;
        if (queue_.size() + 1 >= options_.max_queued_events ||
            (!queue_.empty() && bytes_ + t->size() > options_.max_queued_bytes)) {
          cut = true;
          break;
        }
        push_locked(std::move(t));
        newest = e.id;
        sse_stats().replayed.fetch_add(1, std::memory_order_relaxed);
      }
      std::vector<held_event> waiting;
      waiting.swap(held_);
      for (held_event& h : waiting) {
        if (state_ != state::open) continue;  // overflowed meanwhile (bytes_ reset): nothing more goes
        if (h.index != index) {
          held_.push_back(std::move(h));
          continue;
        }
        bytes_ -= h.t->size();
        if (!cut && compare_event_ids(h.id, newest) > 0) {
          push_locked(std::move(h.t));
        }
      }
      if (cut && state_ == state::open) state_ = state::closing_with_retry;
    } catch (...) {
      overflow_locked();
    }
    wake = take_wake_locked();
  }
  if (wake) wake();
}

void event_queue::close() noexcept {
  std::function<void()> wake;
  {
    std::lock_guard lock(mutex_);
    if (state_ == state::open) state_ = state::closing;
    wake = take_wake_locked();
  }
  if (wake) wake();
}

std::vector<std::string> event_queue::subscribed_topics() const noexcept {
  std::vector<std::string> names;
  std::lock_guard lock(mutex_);
  try {
    for (const subscription& s : subs_) names.push_back(s.topic);
  } catch (...) {  // out of memory: the topics left out keep a closed stream until they empty
  }
  return names;
}

bool event_queue::closed() const noexcept {
  std::lock_guard lock(mutex_);
  return state_ != state::open;
}

bool event_queue::empty() const noexcept {
  std::lock_guard lock(mutex_);
  return queue_.empty();
}

void event_queue::detach() noexcept {
  event_topics* where = nullptr;
  {
    std::lock_guard lock(mutex_);
    state_ = state::ended;
    queue_.clear();
    held_.clear();
    bytes_ = 0;
    wake_ = nullptr;
    where = std::exchange(topics_, nullptr);
  }
  // Only on the worker whose tables hold the subscriptions; elsewhere (a
  // worker being torn down from another thread) the tables go with it.
  if (where != nullptr && where == current_event_topics()) where->unsubscribe_all(*this);
}

event_queue::take_result event_queue::take(std::string& out, std::size_t target,
                                           const std::function<std::function<void()>()>& park) {
  std::lock_guard lock(mutex_);
  if (!queue_.empty()) {
    while (!queue_.empty() && out.size() < target) {
      out += *queue_.front();
      bytes_ -= queue_.front()->size();
      queue_.pop_front();
    }
    return take_result::taken;
  }
  switch (state_) {
    case state::open: wake_ = park(); return wake_ ? take_result::parked : take_result::empty;
    case state::closing: return take_result::ended;
    case state::closing_with_retry:
    case state::overflowed: return take_result::overflowed;
    case state::ended: return take_result::ended;
  }
  return take_result::ended;
}

}  // namespace stet::detail
