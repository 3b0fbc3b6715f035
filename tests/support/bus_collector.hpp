#pragma once
// A bus sink for tests: keeps every delivered event (owned copies) and lets
// the test wait for a number of them, with a deadline.

#include "pubsub/bus.hpp"

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

namespace stet::test {

struct delivered_event {
  std::string topic;
  std::string id;
  std::string data;
};

class bus_collector {
 public:
  /// The sink to hand to bus::start(); `delay` runs in it first (a slow instance).
  detail::bus::sink sink(std::function<void()> delay = {}) {
    return [this, delay = std::move(delay)](const detail::bus_event& e) {
      if (delay) delay();
      const std::lock_guard lock(mutex_);
      events_.push_back({std::string(e.topic), std::string(e.id), std::string(e.data)});
      changed_.notify_all();
    };
  }
  /// Waits until `pred(events)` holds or `timeout` passes; the events seen.
  std::vector<delivered_event> wait_until(const std::function<bool(const std::vector<delivered_event>&)>& pred,
                                          std::chrono::milliseconds timeout = std::chrono::seconds(5)) {
    std::unique_lock lock(mutex_);
    changed_.wait_for(lock, timeout, [&] { return pred(events_); });
    return events_;
  }
  /// Waits for at least `n` events whose data starts with `prefix`; those events.
  std::vector<delivered_event> wait_for(std::size_t n, const std::string& prefix,
                                        std::chrono::milliseconds timeout = std::chrono::seconds(5)) {
    std::vector<delivered_event> matching;
    wait_until([&](const std::vector<delivered_event>& all) { return count(all, prefix) >= n; }, timeout);
    for (delivered_event& e : snapshot())
      if (e.data.starts_with(prefix)) matching.push_back(std::move(e));
    return matching;
  }
  std::vector<delivered_event> snapshot() {
    const std::lock_guard lock(mutex_);
    return events_;
  }

 private:
  static std::size_t count(const std::vector<delivered_event>& all, const std::string& prefix) {
    std::size_t n = 0;
    for (const delivered_event& e : all) n += e.data.starts_with(prefix) ? 1u : 0u;
    return n;
  }

  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<delivered_event> events_;
};

}  // namespace stet::test
