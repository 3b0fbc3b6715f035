#include "net/ws/websocket_mailbox.hpp"

#include <algorithm>
#include <utility>

namespace stet::detail {

websocket_mailbox::websocket_mailbox(asio::io_context& io, limits l, websocket_counters& counters, deliver_fn deliver)
    : io_(&io),
      limits_{std::max<std::size_t>(l.messages, 1), l.bytes},
      counters_(counters),
      deliver_(std::move(deliver)) {
  running_.reserve(slice_entries);
}

websocket_mailbox::post_result websocket_mailbox::post(const std::shared_ptr<const websocket_publication>& p) {
  const std::size_t payload =
      p->topic.size() + p->id.size() + (p->frame ? p->frame->size() : 0) + (p->event ? p->event->size() : 0);
  return push({p, {}, entry_bytes + payload});
}

websocket_mailbox::post_result websocket_mailbox::post(std::function<void()> task, std::size_t payload_bytes) {
  return push({{}, std::move(task), entry_bytes + payload_bytes});
}

websocket_mailbox::post_result websocket_mailbox::post_unbounded(std::function<void()> task) {
  return push({{}, std::move(task), 0});
}

websocket_mailbox::post_result websocket_mailbox::push(entry&& e) {
  std::lock_guard lock(mutex_);
  if (io_ == nullptr) return post_result::closed;
  if (e.bytes != 0 && (messages_ >= limits_.messages || (messages_ > 0 && bytes_ + e.bytes > limits_.bytes))) {
    counters_.mailbox_dropped.fetch_add(1, std::memory_order_relaxed);
    return post_result::full;
  }
  queue_.push_back(std::move(e));
  if (!run_posted_) {
    try {
      asio::post(*io_, [self = shared_from_this()] { self->run(); });
    } catch (...) {
      queue_.pop_back();
      throw;
    }
    run_posted_ = true;
  }
  if (queue_.back().bytes != 0) {
    ++messages_;
    bytes_ += queue_.back().bytes;
    update_gauges();
  }
  return post_result::posted;
}

// One slice: what is taken leaves the bound at once (a slice is small); the
// rest waits for the next run, queued behind whatever else the loop has (the
// flush this slice asked for, reads, accepts).
void websocket_mailbox::run() {
  for (;;) {
    asio::io_context* io = nullptr;
    bool more = false;
    {
      std::lock_guard lock(mutex_);
      if (io_ == nullptr) return;
      io = io_;
      const std::size_t n = std::min(queue_.size(), slice_entries);
      for (std::size_t i = 0; i < n; ++i) {
        entry& e = queue_.front();
        if (e.bytes != 0) {
          --messages_;
          bytes_ -= e.bytes;
        }
        running_.push_back(std::move(e));  // reserved: cannot throw
        queue_.pop_front();
      }
      update_gauges();
      more = !queue_.empty();
      // Still set while `more`: no post adds a second run meanwhile.
      if (!more) run_posted_ = false;
    }
    for (entry& e : running_) {
      if (e.publication) {
        deliver_(*e.publication);
      } else if (e.task) {
        try {
          e.task();
        } catch (...) {  // only allocation throws there: that send is lost, the others still run
        }
      }
    }
    running_.clear();
    if (!more) return;
    try {
      asio::post(*io, [self = shared_from_this()] { self->run(); });
      return;
    } catch (...) {  // no memory for the task: the next slice runs now instead
    }
  }
}

void websocket_mailbox::update_gauges() noexcept {
  // Under mutex_: one writer at a time.
  counters_.mailbox_messages.store(messages_, std::memory_order_relaxed);
  counters_.mailbox_bytes.store(bytes_, std::memory_order_relaxed);
  if (messages_ > counters_.mailbox_peak_messages.load(std::memory_order_relaxed))
    counters_.mailbox_peak_messages.store(messages_, std::memory_order_relaxed);
  if (bytes_ > counters_.mailbox_peak_bytes.load(std::memory_order_relaxed))
    counters_.mailbox_peak_bytes.store(bytes_, std::memory_order_relaxed);
}

void websocket_mailbox::close() noexcept {
  std::deque<entry> dropped;
  {
    std::lock_guard lock(mutex_);
    io_ = nullptr;
    dropped.swap(queue_);
    messages_ = bytes_ = 0;
    update_gauges();
  }
  // Destroyed outside the lock: a task's captures may hold sessions.
}

std::size_t websocket_mailbox::size() const {
  std::lock_guard lock(mutex_);
  return messages_;
}

}  // namespace stet::detail
