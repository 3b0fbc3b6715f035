// multipart/form-data parser throughput: a 64 MiB body of four 16 MiB file
// parts fed in pieces of a socket read's size; the parser's work only (the
// data events are counted, not copied).
#include <stet/multipart.hpp>

#include "support/alloc_counter.hpp"

#include <benchmark/benchmark.h>

#include <random>
#include <string>

namespace {

constexpr std::string_view content_type = "multipart/form-data; boundary=----WebKitFormBoundary7MA4YWxkTrZu0gW";
constexpr std::string_view boundary = "----WebKitFormBoundary7MA4YWxkTrZu0gW";
constexpr std::size_t body_bytes = 64u << 20;
constexpr int parts = 4;

std::string part_head(int i) {
  return "--" + std::string(boundary) + "\r\nContent-Disposition: form-data; name=\"file" + std::to_string(i) +
         "\"; filename=\"f" + std::to_string(i) + ".bin\"\r\nContent-Type: application/octet-stream\r\n\r\n";
}

// Random bytes (a CR every 256 bytes on average, as in compressed files), or
// the worst case: data made of near-delimiters, "\r\n--" plus most of the boundary.
std::string make_body(bool adversarial) {
  std::string body;
  body.reserve(body_bytes + 4096);
  std::mt19937_64 rng(7);
  const std::string near = "\r\n--" + std::string(boundary.substr(0, boundary.size() - 1)) + "x";
  for (int i = 0; i < parts; ++i) {
    body += part_head(i);
    const std::size_t end = body.size() + body_bytes / parts;
    if (adversarial) {
      while (body.size() + near.size() <= end) body += near;
    } else {
      while (body.size() + 8 <= end) {
        const std::uint64_t r = rng();
        body.append(reinterpret_cast<const char*>(&r), 8);
      }
    }
    body += "\r\n";
  }
  return body + "--" + std::string(boundary) + "--\r\n";
}

const std::string& body(bool adversarial) {
  static const std::string random_body = make_body(false);
  static const std::string near_body = make_body(true);
  return adversarial ? near_body : random_body;
}

void parse(benchmark::State& state, bool adversarial) {
  const std::string& b = body(adversarial);
  const auto piece = static_cast<std::size_t>(state.range(0));
  std::uint64_t allocations = 0;
  for (auto _ : state) {
    stet::multipart_parser parser(content_type);
    std::size_t data = 0;
    const std::uint64_t before = stet::test::thread_allocations();
    for (std::size_t pos = 0; pos < b.size(); pos += piece) {
      parser.consume(std::string_view(b).substr(pos, piece),
                     [&](const stet::multipart_event& e) { data += e.data.size(); });
    }
    parser.finish([](const stet::multipart_event&) {});
    allocations += stet::test::thread_allocations() - before;
    if (!parser.done() || data < body_bytes - 4096) state.SkipWithError("the body did not parse");
    benchmark::DoNotOptimize(data);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * b.size()));
  state.counters["allocs/op"] =
      benchmark::Counter(static_cast<double>(allocations), benchmark::Counter::kAvgIterations);
}

void BM_MultipartRandomData(benchmark::State& state) { parse(state, false); }
void BM_MultipartNearDelimiters(benchmark::State& state) { parse(state, true); }

BENCHMARK(BM_MultipartRandomData)->Arg(8 << 10)->Arg(64 << 10)->Arg(1 << 20)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_MultipartNearDelimiters)->Arg(64 << 10)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
