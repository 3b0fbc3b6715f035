#include "coro/offload_pool.hpp"

#include "coro/executor.hpp"
#include "counters/counter_add.hpp"

#include <pthread.h>
#include <csignal>

namespace stet::detail {
namespace {

enum job_state : std::uint8_t { idle = 0, queued = 1, running = 2 };

}  // namespace

offload_pool::offload_pool(offload_settings settings)
    : settings_(settings), stats_(std::make_unique<thread_stats[]>(settings.threads)) {}

offload_pool::~offload_pool() {
  std::vector<std::thread> threads;
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
    threads.swap(threads_);
  }
  work_.notify_all();
  for (std::thread& t : threads) t.join();
}

bool offload_pool::submit(offload_job& job) noexcept {
  job.queued = std::chrono::steady_clock::now();
  {
    const std::lock_guard lock(mutex_);
    if (!started_) start_threads_locked();
    // Accepted and not finished: those running and those waiting. Only the
    // ones beyond the threads wait, and of those at most queue_limit.
    const std::uint64_t taken = queued_.load(std::memory_order_relaxed) + running_.load(std::memory_order_relaxed);
    if (threads_.empty() || stopping_ || taken >= threads_.size() + settings_.queue_limit) {
      rejected_.fetch_add(1, std::memory_order_relaxed);
      return false;
    }
    job.state = queued;
    job.pool = this;
    job.prev = tail_;
    job.next_job = nullptr;
    if (tail_ != nullptr) {
      tail_->next_job = &job;
    } else {
      head_ = &job;
    }
    tail_ = &job;
    queued_.store(queued_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  }
  work_.notify_one();
  return true;
}

bool offload_pool::withdraw(offload_job& job) noexcept {
  const std::lock_guard lock(mutex_);
  if (job.state != queued) return false;
  (job.prev != nullptr ? job.prev->next_job : head_) = job.next_job;
  (job.next_job != nullptr ? job.next_job->prev : tail_) = job.prev;
  job.state = idle;
  queued_.store(queued_.load(std::memory_order_relaxed) - 1, std::memory_order_relaxed);
  withdrawn_.fetch_add(1, std::memory_order_relaxed);
  return true;
}

offload_job* offload_pool::pop_locked() noexcept {
  offload_job* job = head_;
  if (job == nullptr) return nullptr;
  head_ = job->next_job;
  (head_ != nullptr ? head_->prev : tail_) = nullptr;
  job->state = running;
  queued_.store(queued_.load(std::memory_order_relaxed) - 1, std::memory_order_relaxed);
  return job;
}

// Started from whichever thread offloads first. The threads must not take the
// signals a server's embedder waits for (stet-server's SIGINT/SIGTERM are
// blocked in its threads already), nor die of SIGPIPE.
void offload_pool::start_threads_locked() noexcept {
  started_ = true;
  sigset_t blocked;
  sigemptyset(&blocked);
  sigaddset(&blocked, SIGPIPE);
  sigset_t before;
  pthread_sigmask(SIG_BLOCK, &blocked, &before);
  try {
    for (unsigned i = 0; i < settings_.threads; ++i) {
      thread_stats* stats = &stats_[i];
      threads_.emplace_back([this, stats] { serve(*stats); });
    }
  } catch (...) {
    // Fewer threads than asked (the system refused more): serve with those.
  }
  pthread_sigmask(SIG_SETMASK, &before, nullptr);
}

void offload_pool::serve(thread_stats& stats) noexcept {
  std::unique_lock lock(mutex_);
  for (;;) {
    work_.wait(lock, [this] { return head_ != nullptr || stopping_; });
    offload_job* job = pop_locked();
    if (job == nullptr) return;  // stopping, and nothing left
    running_.store(running_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    lock.unlock();

    const auto started = std::chrono::steady_clock::now();
    stats.wait.record(started - job->queued);
    const bool returned = job->call(*job);
    stats.run.record(std::chrono::steady_clock::now() - started);
    single_writer_add(returned ? stats.completed : stats.failed);
    // The job may be gone as soon as it is posted: this is its last use here.
    job->home->post(*job);

    lock.lock();
    running_.store(running_.load(std::memory_order_relaxed) - 1, std::memory_order_relaxed);
  }
}

offload_pool::snapshot offload_pool::read() const noexcept {
  snapshot s;
  s.queued_now = queued_.load(std::memory_order_relaxed);
  s.running_now = running_.load(std::memory_order_relaxed);
  s.queue_limit = settings_.queue_limit;
  s.rejected = rejected_.load(std::memory_order_relaxed);
  s.withdrawn = withdrawn_.load(std::memory_order_relaxed);
  s.dropped = dropped_.load(std::memory_order_relaxed);
  {
    const std::lock_guard lock(mutex_);
    s.threads = threads_.size();
  }
  for (unsigned i = 0; i < settings_.threads; ++i) {
    s.completed += stats_[i].completed.load(std::memory_order_relaxed);
    s.failed += stats_[i].failed.load(std::memory_order_relaxed);
    s.wait.add(stats_[i].wait.read());
    s.run.add(stats_[i].run.read());
  }
  return s;
}

}  // namespace stet::detail
