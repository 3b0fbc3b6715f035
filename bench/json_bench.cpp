// JSON out: stet::json::writer against a naive std::ostringstream encoder and
// fmt::format_to with hand-written escaping, on one ~60 KB API document; plus the
// small /json response built with response::json.
#include <stet/json.hpp>
#include <stet/response.hpp>

#include "support/alloc_counter.hpp"
#include "support/json_baselines.hpp"
#include "support/json_document.hpp"

#include <benchmark/benchmark.h>
#include <simdjson.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace {

using bench_json::document;

constexpr std::size_t users_per_document = 63;

const document& sample() {
  static const document d = bench_json::make_document(users_per_document);
  return d;
}

// MB/s everywhere is measured against stet's output size, so the column compares
// documents per second, not how verbose each encoder's numbers are.
std::size_t reference_size() {
  static const std::size_t size = stet::json::to_string(sample()).size();
  return size;
}

void report(benchmark::State& state, std::uint64_t allocations_before) {
  const auto allocations = stet::test::thread_allocations() - allocations_before;
  state.counters["allocs/op"] =
      benchmark::Counter(static_cast<double>(allocations), benchmark::Counter::kAvgIterations);
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * reference_size()));
  state.counters["doc_bytes"] = static_cast<double>(reference_size());
}

void BM_JsonStetWriter(benchmark::State& state) {
  std::string out;
  stet::json::writer(out).value(sample());  // warm-up: the buffer reaches its size once, as a pooled body would
  const std::uint64_t before = stet::test::thread_allocations();
  for (auto _ : state) {
    out.clear();
    stet::json::writer w(out);
    w.value(sample());
    benchmark::DoNotOptimize(out.data());
  }
  report(state, before);
}
BENCHMARK(BM_JsonStetWriter);

void BM_JsonOstream(benchmark::State& state) {
  const std::uint64_t before = stet::test::thread_allocations();
  for (auto _ : state) {
    std::string out = bench_json::encode_ostream(sample());
    benchmark::DoNotOptimize(out.data());
  }
  report(state, before);
}
BENCHMARK(BM_JsonOstream);

void BM_JsonFmtFormatTo(benchmark::State& state) {
  fmt::memory_buffer out;
  bench_json::encode_fmt(out, sample());  // warm-up, as for stet
  const std::uint64_t before = stet::test::thread_allocations();
  for (auto _ : state) {
    out.clear();
    bench_json::encode_fmt(out, sample());
    benchmark::DoNotOptimize(out.data());
  }
  report(state, before);
}
BENCHMARK(BM_JsonFmtFormatTo);

struct greeting {
  std::string_view message;
};

void to_json(stet::json::writer& w, const greeting& g) { w.begin_object().member("message", g.message).end_object(); }

// GET /json: the whole response object, body in the pooled buffer.
void BM_ResponseJsonHello(benchmark::State& state) {
  const std::uint64_t before = stet::test::thread_allocations();
  for (auto _ : state) {
    stet::response r = stet::response::json(greeting{"Hello, World!"});
    benchmark::DoNotOptimize(r.body().data());
  }
  state.counters["allocs/op"] = benchmark::Counter(static_cast<double>(stet::test::thread_allocations() - before),
                                                   benchmark::Counter::kAvgIterations);
}
BENCHMARK(BM_ResponseJsonHello);

// --- the three encoders must produce the same document ---------------------------

bool same_json(simdjson::dom::element a, simdjson::dom::element b) {
  using simdjson::dom::element_type;
  const auto numeric = [](element_type t) {
    return t == element_type::INT64 || t == element_type::UINT64 || t == element_type::DOUBLE;
  };
  if (numeric(a.type()) && numeric(b.type())) return double(a.get_double()) == double(b.get_double());
  if (a.type() != b.type()) return false;
  switch (a.type()) {
    case element_type::ARRAY: {
      simdjson::dom::array x = a.get_array(), y = b.get_array();
      if (x.size() != y.size()) return false;
      for (auto i = x.begin(), j = y.begin(); i != x.end(); ++i, ++j) {
        if (!same_json(*i, *j)) return false;
      }
      return true;
    }
    case element_type::OBJECT: {
      simdjson::dom::object x = a.get_object(), y = b.get_object();
      if (x.size() != y.size()) return false;
      for (auto i = x.begin(), j = y.begin(); i != x.end(); ++i, ++j) {
        if (i.key() != j.key() || !same_json(i.value(), j.value())) return false;
      }
      return true;
    }
    case element_type::STRING: return std::string_view(a) == std::string_view(b);
    case element_type::BOOL: return bool(a) == bool(b);
    default: return true;  // null
  }
}

bool encoders_agree() {
  const std::string stet_json = stet::json::to_string(sample());
  const std::string stream_json = bench_json::encode_ostream(sample());
  fmt::memory_buffer fmt_buffer;
  bench_json::encode_fmt(fmt_buffer, sample());
  const std::string fmt_json = fmt::to_string(fmt_buffer);

  simdjson::dom::parser p1, p2, p3;
  simdjson::dom::element a, b, c;
  if (p1.parse(stet_json).get(a) || p2.parse(stream_json).get(b) || p3.parse(fmt_json).get(c)) return false;
  std::fprintf(stderr, "document: %zu bytes (stet), %zu (ostream), %zu (fmt)\n", stet_json.size(), stream_json.size(),
               fmt_json.size());
  return same_json(a, b) && same_json(a, c);
}

}  // namespace

int main(int argc, char** argv) {
  if (!encoders_agree()) {
    std::fprintf(stderr, "json_bench: the encoders disagree on the document\n");
    return EXIT_FAILURE;
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return EXIT_FAILURE;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return EXIT_SUCCESS;
}
