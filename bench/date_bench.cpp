// Date header: the per-worker cache against formatting on every response.
#include "http/date_cache.hpp"
#include "support/alloc_counter.hpp"

#include <benchmark/benchmark.h>

#include <ctime>

namespace {

void report_allocations(benchmark::State& state, std::uint64_t before) {
  state.counters["allocs/op"] = benchmark::Counter(static_cast<double>(stet::test::thread_allocations() - before),
                                                   benchmark::Counter::kAvgIterations);
}

void BM_DateFormattedPerResponse(benchmark::State& state) {
  std::array<char, 29> out{};
  const std::uint64_t before = stet::test::thread_allocations();
  for (auto _ : state) {
    benchmark::DoNotOptimize(stet::detail::format_http_date(std::time(nullptr), out));
  }
  report_allocations(state, before);
}
BENCHMARK(BM_DateFormattedPerResponse);

void BM_DateCached(benchmark::State& state) {
  stet::detail::date_cache cache;
  const std::uint64_t before = stet::test::thread_allocations();
  for (auto _ : state) benchmark::DoNotOptimize(cache.now());
  report_allocations(state, before);
}
BENCHMARK(BM_DateCached);

}  // namespace

BENCHMARK_MAIN();
