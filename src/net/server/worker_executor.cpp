#include "net/server/worker_executor.hpp"

#include <boost/asio/bind_allocator.hpp>

#include <new>

namespace stet::detail {
namespace {

template <class T>
struct slot_allocator {
  using value_type = T;
  handler_slot* slot;

  explicit slot_allocator(handler_slot* s) noexcept : slot(s) {}
  template <class U>
  slot_allocator(const slot_allocator<U>& other) noexcept
      : slot(other.slot) {}  // NOLINT: allocators convert implicitly
  T* allocate(std::size_t n) { return static_cast<T*>(slot->allocate(n * sizeof(T))); }
  void deallocate(T* p, std::size_t /*n*/) noexcept { slot->deallocate(p); }
  template <class U>
  bool operator==(const slot_allocator<U>& other) const noexcept {
    return slot == other.slot;
  }
};

}  // namespace

void* handler_slot::allocate(std::size_t bytes) {
  if (bytes <= sizeof(bytes_) && !taken_.exchange(true, std::memory_order_acquire)) return bytes_;
  return ::operator new(bytes);
}

void handler_slot::deallocate(void* p) noexcept {
  if (p == bytes_) {
    taken_.store(false, std::memory_order_release);
    return;
  }
  ::operator delete(p);
}

worker_executor::worker_executor(asio::io_context& io, offload_pool* pool) : io_(io), pool_(pool), timer_(io) {}

void worker_executor::post(resumable& r) noexcept {
  resumable* head = inbox_.load(std::memory_order_relaxed);
  do {
    r.next = head;
  } while (!inbox_.compare_exchange_weak(head, &r, std::memory_order_release, std::memory_order_relaxed));
  if (head != nullptr) return;  // the wake-up posted for the first one runs this one too
  asio::post(io_, asio::bind_allocator(slot_allocator<void>(&slot_), [this] { run_posted(); }));
}

void worker_executor::run_posted() noexcept {
  resumable* lifo = inbox_.exchange(nullptr, std::memory_order_acquire);
  resumable* fifo = nullptr;
  while (lifo != nullptr) {
    resumable* next = lifo->next;
    lifo->next = fifo;
    fifo = lifo;
    lifo = next;
  }
  while (fifo != nullptr) {
    resumable* next = fifo->next;  // run() may free the node
    fifo->run(*fifo);
    fifo = next;
  }
}

void worker_executor::start_timer(timer_entry& t) noexcept {
  timers_.push(t);
  if (timers_.next_due() < armed_) arm(timers_.next_due());
}

void worker_executor::cancel_timer(timer_entry& t) noexcept {
  timers_.erase(t);
  if (timers_.empty() && armed_ != std::chrono::steady_clock::time_point::max()) {
    // An armed wait would keep the loop alive until it expires.
    armed_ = std::chrono::steady_clock::time_point::max();
    timer_.cancel();
  }
}

void worker_executor::arm(std::chrono::steady_clock::time_point due) noexcept {
  armed_ = due;
  timer_.expires_at(due);
  timer_.async_wait([this](const boost::system::error_code& ec) {
    if (ec != asio::error::operation_aborted) on_timer();
  });
}

// What is due now runs; what those tasks schedule (a sleep of zero included)
// waits for the next turn, so a task sleeping in a loop cannot starve the worker.
void worker_executor::on_timer() noexcept {
  armed_ = std::chrono::steady_clock::time_point::max();
  const auto now = std::chrono::steady_clock::now();
  resumable* due = nullptr;
  resumable** tail = &due;
  while (timer_entry* t = timers_.pop_due(now)) {
    t->next = nullptr;
    *tail = t;
    tail = &t->next;
  }
  while (due != nullptr) {
    resumable* next = due->next;
    due->run(*due);
    due = next;
  }
  if (!timers_.empty() && timers_.next_due() < armed_) arm(timers_.next_due());
}

}  // namespace stet::detail
