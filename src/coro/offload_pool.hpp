#pragma once
// The blocking pool behind stet::offload: a fixed set of threads shared by all
// workers of a server, and a bounded FIFO of jobs. A job lives in the frame
// of the coroutine that offloaded it and is queued by pointer, so an offload
// allocates nothing; when the queue is full a job is refused at once (the
// handler answers 503), never queued without bound. When a job's function
// returns, the job is posted back to the executor it came from.

#include <stet/latency_histogram.hpp>
#include <stet/offload.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace stet::detail {

struct offload_settings {
  unsigned threads = 4;            ///< 0: every job is refused
  std::size_t queue_limit = 1024;  ///< jobs waiting for a thread, at most
  std::chrono::seconds retry_after{1};
};

class offload_pool {
 public:
  explicit offload_pool(offload_settings settings);
  offload_pool(const offload_pool&) = delete;
  offload_pool& operator=(const offload_pool&) = delete;
  /// Stops and joins the threads, after the jobs already queued ran.
  ~offload_pool();

  /// From any thread: queues `job` (its `home` set). False when the queue is
  /// full or the pool has no threads; `job` is then untouched. Threads start
  /// on the first submit, so a server that never offloads runs none.
  bool submit(offload_job& job) noexcept;
  /// Takes a queued job back: true if it had not started (it never will).
  bool withdraw(offload_job& job) noexcept;
  /// A job finished after its coroutine stopped waiting: its result was dropped.
  void count_dropped() noexcept { dropped_.fetch_add(1, std::memory_order_relaxed); }

  const offload_settings& settings() const noexcept { return settings_; }

  /// What the metrics read (any thread, relaxed).
  struct snapshot {
    std::uint64_t queued_now = 0;
    std::uint64_t running_now = 0;
    std::uint64_t threads = 0;
    std::uint64_t queue_limit = 0;
    std::uint64_t completed = 0;       // the function returned
    std::uint64_t failed = 0;          // the function threw
    std::uint64_t rejected = 0;        // refused: queue full or no threads
    std::uint64_t withdrawn = 0;       // taken back before it started (its coroutine was cancelled)
    std::uint64_t dropped = 0;         // finished after its coroutine was cancelled
    latency_histogram::snapshot wait;  // queued -> started
    latency_histogram::snapshot run;   // started -> returned
  };
  snapshot read() const noexcept;

 private:
  // One per thread: each thread is the only writer of its own.
  struct thread_stats {
    latency_histogram wait;
    latency_histogram run;
    std::atomic<std::uint64_t> completed{0};
    std::atomic<std::uint64_t> failed{0};
  };

  void start_threads_locked() noexcept;
  void serve(thread_stats& stats) noexcept;
  offload_job* pop_locked() noexcept;

  const offload_settings settings_;
  mutable std::mutex mutex_;
  std::condition_variable work_;
  offload_job* head_ = nullptr;
  offload_job* tail_ = nullptr;
  std::atomic<std::uint64_t> queued_{0};  // written under mutex_, read by the metrics
  std::atomic<std::uint64_t> running_{0};
  std::atomic<std::uint64_t> rejected_{0};
  std::atomic<std::uint64_t> withdrawn_{0};
  std::atomic<std::uint64_t> dropped_{0};
  bool stopping_ = false;
  bool started_ = false;
  std::unique_ptr<thread_stats[]> stats_;
  std::vector<std::thread> threads_;
};

}  // namespace stet::detail
