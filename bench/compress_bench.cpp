// Response compression: a pooled compressor state reset per body against a
// fresh state per body, for gzip, br and zstd at the default (nginx-equal)
// levels, on the ~60 KB JSON document of json_bench and the 83 KB app.css.
// Also Accept-Encoding parsing with and without the per-thread memo.
#include <stet/json.hpp>

#include "response/compress/accept_encoding_memo.hpp"
#include "response/compress/compress.hpp"
#include "support/alloc_counter.hpp"
#include "support/json_document.hpp"

#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace {

using stet::content_coding;
using stet::detail::encoder_params;

const std::string& json_body() {
  static const std::string body = stet::json::to_string(bench_json::make_document(63));
  return body;
}

const std::string& css_body() {
  static const std::string body = [] {
    std::ifstream in(STET_EXAMPLE_SITE "/app.css", std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
  }();
  return body;
}

const std::string& input(int which) { return which == 0 ? json_body() : css_body(); }

void report(benchmark::State& state, const std::string& plain, std::size_t coded, std::uint64_t allocations_before) {
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * plain.size()));
  state.counters["in_bytes"] = static_cast<double>(plain.size());
  state.counters["out_bytes"] = static_cast<double>(coded);
  state.counters["allocs/op"] = benchmark::Counter(
      static_cast<double>(stet::test::thread_allocations() - allocations_before), benchmark::Counter::kAvgIterations);
}

// What stet does: the worker's pooled state, reset for each body; output into
// a buffer that keeps its capacity (as a pooled response body does).
void BM_Reused(benchmark::State& state, content_coding c) {
  const std::string& plain = input(static_cast<int>(state.range(0)));
  std::string out;
  stet::detail::compress_body(c, encoder_params{}, plain, out);  // warm the pool and the buffer
  const std::uint64_t before = stet::test::thread_allocations();
  for (auto _ : state) {
    out.clear();
    if (!stet::detail::compress_body(c, encoder_params{}, plain, out)) state.SkipWithError("compress failed");
    benchmark::DoNotOptimize(out.data());
  }
  report(state, plain, out.size(), before);
}

// The baseline: a state created for the body and destroyed after it (what a
// server without per-worker state does; for brotli, also no kept blocks).
void BM_Fresh(benchmark::State& state, content_coding c) {
  const std::string& plain = input(static_cast<int>(state.range(0)));
  std::string out;
  const std::uint64_t before = stet::test::thread_allocations();
  for (auto _ : state) {
    out.clear();
    std::unique_ptr<stet::detail::encoder> e = stet::detail::make_encoder(c);
    if (!e->begin(encoder_params{}, plain.size()) || !e->write(plain, stet::detail::flush_kind::finish, out)) {
      state.SkipWithError("compress failed");
    }
    benchmark::DoNotOptimize(out.data());
  }
  report(state, plain, out.size(), before);
}

// Range 0: the JSON document; 1: app.css.
BENCHMARK_CAPTURE(BM_Reused, gzip, content_coding::gzip)->Arg(0)->Arg(1);
BENCHMARK_CAPTURE(BM_Fresh, gzip, content_coding::gzip)->Arg(0)->Arg(1);
BENCHMARK_CAPTURE(BM_Reused, br, content_coding::br)->Arg(0)->Arg(1);
BENCHMARK_CAPTURE(BM_Fresh, br, content_coding::br)->Arg(0)->Arg(1);
BENCHMARK_CAPTURE(BM_Reused, zstd, content_coding::zstd)->Arg(0)->Arg(1);
BENCHMARK_CAPTURE(BM_Fresh, zstd, content_coding::zstd)->Arg(0)->Arg(1);

void BM_AcceptEncoding(benchmark::State& state) {
  stet::detail::accept_encoding_memo_enable(state.range(0) != 0);
  constexpr std::string_view chrome = "gzip, deflate, br, zstd";
  const std::uint64_t before = stet::test::thread_allocations();
  for (auto _ : state) benchmark::DoNotOptimize(stet::detail::cached_accept_encoding(chrome));
  state.counters["allocs/op"] = benchmark::Counter(static_cast<double>(stet::test::thread_allocations() - before),
                                                   benchmark::Counter::kAvgIterations);
  stet::detail::accept_encoding_memo_enable(true);
}
BENCHMARK(BM_AcceptEncoding)->Arg(0)->Arg(1);  // 0: parsed every time; 1: memo

}  // namespace

int main(int argc, char** argv) {
  if (css_body().empty()) {
    std::fprintf(stderr, "compress_bench: cannot read %s/app.css\n", STET_EXAMPLE_SITE);
    return EXIT_FAILURE;
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return EXIT_FAILURE;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return EXIT_SUCCESS;
}
