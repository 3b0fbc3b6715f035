// The tracing hook off and on: the request path's phase recording
// (detail::record_phase, the function the connection calls at each phase end)
// with no tracer, a tracer that does nothing, and one that records each span.
// The *RequestPhases* cases run one request's worth of the connection's timing
// work (clock reads for parse, handler and write) including the case where
// nothing needs timing at all (no metrics, no tracer, no Server-Timing).
#include <stet/metrics.hpp>

#include "metrics/phase_record.hpp"
#include "support/alloc_counter.hpp"

#include <benchmark/benchmark.h>

#include <array>
#include <chrono>

namespace {

using clock_type = std::chrono::steady_clock;

class noop_tracer final : public stet::tracer {
 public:
  void on_phase(const stet::request*, stet::phase, clock_type::time_point, clock_type::time_point) noexcept override {}
};

// Keeps the last spans in a fixed ring: what a sampling tracer does before
// handing spans to an exporter, without allocating.
class recording_tracer final : public stet::tracer {
 public:
  void on_phase(const stet::request* r, stet::phase p, clock_type::time_point start,
                clock_type::time_point end) noexcept override {
    spans_[next_++ % spans_.size()] = {r, p, start, end};
  }

 private:
  struct span {
    const stet::request* r;
    stet::phase p;
    clock_type::time_point start, end;
  };
  std::array<span, 1024> spans_{};
  std::size_t next_ = 0;
};

enum class kind { none, noop, recording };

stet::tracer* make_tracer(kind k) {
  static noop_tracer noop;
  static recording_tracer recording;
  switch (k) {
    case kind::none: return nullptr;
    case kind::noop: return &noop;
    case kind::recording: return &recording;
  }
  return nullptr;
}

void report_allocations(benchmark::State& state, std::uint64_t before) {
  state.counters["allocs/op"] = benchmark::Counter(static_cast<double>(stet::test::thread_allocations() - before),
                                                   benchmark::Counter::kAvgIterations);
}

// One phase end, time points given: the histogram update plus the tracer check.
template <kind K>
void BM_RecordPhase(benchmark::State& state) {
  stet::detail::worker_counters counters;
  stet::tracer* t = make_tracer(K);
  benchmark::DoNotOptimize(t);  // as in the server: a runtime pointer, not a constant
  const clock_type::time_point start = clock_type::now();
  const clock_type::time_point end = start + std::chrono::microseconds(3);
  const std::uint64_t before = stet::test::thread_allocations();
  for (auto _ : state) {
    stet::detail::record_phase(counters, t, stet::phase::handle, start, end, nullptr);
    benchmark::ClobberMemory();
  }
  report_allocations(state, before);
}
BENCHMARK(BM_RecordPhase<kind::none>)->Name("BM_RecordPhase/no_tracer");
BENCHMARK(BM_RecordPhase<kind::noop>)->Name("BM_RecordPhase/noop_tracer");
BENCHMARK(BM_RecordPhase<kind::recording>)->Name("BM_RecordPhase/recording_tracer");

// One request's timing work as the connection does it: when timing is on,
// four clock reads and three recorded phases; when off, one flag test per
// phase boundary and nothing else.
template <kind K>
void BM_RequestPhases(benchmark::State& state) {
  stet::detail::worker_counters counters;
  stet::tracer* t = make_tracer(K);
  bool timing = state.range(0) != 0;
  benchmark::DoNotOptimize(t);
  benchmark::DoNotOptimize(timing);
  const std::uint64_t before = stet::test::thread_allocations();
  for (auto _ : state) {
    const clock_type::time_point first_byte = timing ? clock_type::now() : clock_type::time_point{};
    const clock_type::time_point parsed = timing ? clock_type::now() : clock_type::time_point{};
    if (timing) stet::detail::record_phase(counters, t, stet::phase::parse, first_byte, parsed, nullptr);
    const clock_type::time_point handled = timing ? clock_type::now() : clock_type::time_point{};
    if (timing) stet::detail::record_phase(counters, t, stet::phase::handle, parsed, handled, nullptr);
    if (timing) stet::detail::record_phase(counters, t, stet::phase::write, handled, clock_type::now(), nullptr);
    benchmark::ClobberMemory();
  }
  report_allocations(state, before);
}
BENCHMARK(BM_RequestPhases<kind::none>)->Name("BM_RequestPhases/no_tracer/timing")->ArgName("on")->Arg(0)->Arg(1);
BENCHMARK(BM_RequestPhases<kind::noop>)->Name("BM_RequestPhases/noop_tracer/timing")->ArgName("on")->Arg(1);
BENCHMARK(BM_RequestPhases<kind::recording>)->Name("BM_RequestPhases/recording_tracer/timing")->ArgName("on")->Arg(1);

}  // namespace

BENCHMARK_MAIN();
