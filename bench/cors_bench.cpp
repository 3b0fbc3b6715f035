// What stet::cors costs per request, and whether memoising the origin decision
// per distinct Origin value would pay: the decision itself (exact list of 1, 16
// and 256 origins, binary search; a subdomain pattern) against the lookup a
// memo would need anyway (a hash map keyed by the Origin string).
//
//   ./build/bench/cors_bench --benchmark_counters_tabular=true

#include <stet/cors.hpp>
#include <stet/test_request.hpp>

#include "support/alloc_counter.hpp"

#include <benchmark/benchmark.h>

#include <string>
#include <unordered_map>
#include <vector>

namespace {

std::vector<std::string> origins(std::size_t n) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < n; ++i) out.push_back("https://app" + std::to_string(i) + ".example.com");
  return out;
}

void report_allocs(benchmark::State& state, std::uint64_t before) {
  state.counters["allocs/op"] = benchmark::Counter(static_cast<double>(stet::test::thread_allocations() - before),
                                                   benchmark::Counter::kAvgIterations);
}

// The last listed origin: the deepest binary search.
void BM_DecideExact(benchmark::State& state) {
  stet::cors_options o;
  o.origins = origins(static_cast<std::size_t>(state.range(0)));
  const stet::cors cors(o);
  const std::string origin = o.origins.back();
  const std::uint64_t before = stet::test::thread_allocations();
  for (auto _ : state) benchmark::DoNotOptimize(cors.allows_origin(origin));
  report_allocs(state, before);
}
BENCHMARK(BM_DecideExact)->Arg(1)->Arg(16)->Arg(256);

// Not listed: the binary search, then every pattern, fails.
void BM_DecideRefused(benchmark::State& state) {
  stet::cors_options o;
  o.origins = origins(16);
  o.origins.push_back("https://*.corp.example");
  const stet::cors cors(o);
  const std::string origin = "https://evil.example.net";
  for (auto _ : state) benchmark::DoNotOptimize(cors.allows_origin(origin));
}
BENCHMARK(BM_DecideRefused);

void BM_DecidePattern(benchmark::State& state) {
  stet::cors_options o;
  o.origins = {"https://*.a.example", "https://*.b.example", "https://*.c.example", "https://*.corp.example"};
  const stet::cors cors(o);
  const std::string origin = "https://team.eu.corp.example";
  for (auto _ : state) benchmark::DoNotOptimize(cors.allows_origin(origin));
}
BENCHMARK(BM_DecidePattern);

// What a memo would cost per request even on a hit: hashing the Origin and
// comparing it with the stored key (a per-thread map needs no lock).
void BM_MemoLookupBaseline(benchmark::State& state) {
  std::unordered_map<std::string, bool> memo;
  for (const std::string& o : origins(16)) memo.emplace(o, true);
  std::string origin = "https://app15.example.com";
  for (auto _ : state) {
    benchmark::DoNotOptimize(origin.data());  // the key is read anew, as a request's Origin would be
    benchmark::ClobberMemory();
    const auto it = memo.find(origin);
    benchmark::DoNotOptimize(it != memo.end() && it->second);
  }
}
BENCHMARK(BM_MemoLookupBaseline);

// The whole after-hook on an actual request: Origin lookup, decision, three fields appended.
void BM_AfterHook(benchmark::State& state) {
  stet::cors_options o;
  o.origins = origins(16);
  o.credentials = true;
  const stet::cors cors(o);
  stet::test_request q(stet::method::get, "/json");
  q.header("Host", "api.example.com").header("Accept", "*/*").header("Origin", "https://app7.example.com");
  std::uint64_t before = 0;
  bool first = true;
  for (auto _ : state) {
    stet::response res = stet::response::json_text("{}");
    cors.after(q, res);
    benchmark::DoNotOptimize(res.header_block().data());
    if (first) {  // the response buffer pool warms up on the first response
      before = stet::test::thread_allocations();
      first = false;
    }
  }
  report_allocs(state, before);
}
BENCHMARK(BM_AfterHook);

}  // namespace

BENCHMARK_MAIN();
