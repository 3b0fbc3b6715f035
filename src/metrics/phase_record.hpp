#pragma once
// Where a finished request phase goes: the worker's histogram, then the tracer
// when one is installed. Kept apart from the connection so the benchmark
// (bench/tracer_bench.cpp) measures the very code the request path runs.

#include <stet/metrics.hpp>

#include "metrics/worker_counters.hpp"

#include <chrono>
#include <cstddef>

namespace stet::detail {

/// Records phase `p` of `r` (null for write, which a pipelined batch shares).
/// With no tracer installed the whole tracing cost is the null test.
inline void record_phase(worker_counters& counters, stet::tracer* t, stet::phase p,
                         std::chrono::steady_clock::time_point start, std::chrono::steady_clock::time_point end,
                         const request* r) noexcept {
  counters.phases[static_cast<std::size_t>(p)].record(end - start);
  if (t != nullptr) t->on_phase(r, p, start, end);
}

}  // namespace stet::detail
