// Publish-to-delivery latency across two instances through Redis: two Redis
// bus objects (as two stet processes would hold) on one redis-server started
// here on loopback; instance a publishes at a steady rate, instance b's sink
// notes when each message arrives. Prints p50/p99/max for b (the other
// instance) and for a (its own publish coming back).
//
//   ./build/bench/pubsub_latency_bench [--messages N] [--rate PER_SECOND]

#include "pubsub/redis_bus.hpp"
#include "support/redis_server.hpp"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace {

using clock_type = std::chrono::steady_clock;

struct latencies {
  std::mutex mutex;
  std::vector<double> micros;
  std::atomic<std::size_t> count{0};

  stet::detail::bus::sink sink() {
    return [this](const stet::detail::bus_event& e) {
      long long sent = 0;
      std::from_chars(e.data.data(), e.data.data() + e.data.size(), sent);
      if (sent == 0) return;  // a warm-up probe
      const auto now = clock_type::now().time_since_epoch();
      const double us =
          static_cast<double>(std::chrono::duration_cast<std::chrono::nanoseconds>(now).count() - sent) / 1e3;
      const std::lock_guard lock(mutex);
      micros.push_back(us);
      ++count;
    };
  }
  void report(const char* who) {
    const std::lock_guard lock(mutex);
    std::sort(micros.begin(), micros.end());
    if (micros.empty()) {
      std::printf("%-28s no deliveries\n", who);
      return;
    }
    const auto at = [&](double q) {
      return micros[static_cast<std::size_t>(q * static_cast<double>(micros.size() - 1))];
    };
    std::printf("%-28s n=%zu p50=%.0f us p99=%.0f us max=%.0f us\n", who, micros.size(), at(0.5), at(0.99),
                micros.back());
  }
};

std::size_t flag(int argc, char** argv, std::string_view name, std::size_t fallback) {
  for (int i = 1; i + 1 < argc; ++i)
    if (argv[i] == name) return std::stoul(argv[i + 1]);
  return fallback;
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t messages = flag(argc, argv, "--messages", 20000);
  const std::size_t rate = flag(argc, argv, "--rate", 5000);
  stet::test::redis_server redis;
  if (!redis.start()) {
    std::fprintf(stderr, "redis-server could not be started\n");
    return 1;
  }
  stet::detail::redis_bus_options o;
  o.address = {"127.0.0.1", redis.port()};
  auto a = stet::detail::make_redis_bus(o);
  auto b = stet::detail::make_redis_bus(o);
  latencies at_a;
  latencies at_b;
  a->start(at_a.sink());
  b->start(at_b.sink());
  a->watch("bench");
  b->watch("bench");
  while (!a->stats().connected || !b->stats().connected) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // subscriptions in place

  const auto interval = std::chrono::nanoseconds(1'000'000'000 / std::max<std::size_t>(rate, 1));
  auto next = clock_type::now();
  std::size_t refused = 0;
  for (std::size_t i = 0; i < messages; ++i) {
    std::this_thread::sleep_until(next);
    next += interval;
    const auto sent = std::chrono::duration_cast<std::chrono::nanoseconds>(clock_type::now().time_since_epoch());
    if (!a->publish("bench", std::to_string(sent.count()))) ++refused;
  }
  const auto deadline = clock_type::now() + std::chrono::seconds(10);
  while (at_b.count < messages - refused && clock_type::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  a->stop();
  b->stop();
  std::printf("%zu messages at %zu/s through redis-server on 127.0.0.1 (refused %zu)\n", messages, rate, refused);
  at_b.report("other instance (b)");
  at_a.report("publishing instance (a)");
  return 0;
}
