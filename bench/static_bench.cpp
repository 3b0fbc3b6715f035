// Static files: a cached small-file hit (one lookup + one stat) against the
// uncached path (open, read, close per request), and static_url() memoised
// against hashing the file on every call.
#include <stet/static_files.hpp>

#include "static/content_hash.hpp"
#include "support/alloc_counter.hpp"
#include "support/static_tree.hpp"

#include <benchmark/benchmark.h>

#include <fcntl.h>
#include <unistd.h>

namespace {

using stet::test::fake_request;

void report_allocations(benchmark::State& state, std::uint64_t before) {
  state.counters["allocs/op"] = benchmark::Counter(static_cast<double>(stet::test::thread_allocations() - before),
                                                   benchmark::Counter::kAvgIterations);
}

// An 83 KB stylesheet (the size of the one in the issue) and a 1 KB file.
struct site {
  site() {
    tree.write("app.css", stet::test::pattern_bytes(83 * 1024));
    tree.write("small.txt", stet::test::pattern_bytes(1024));
  }
  stet::test::temp_tree tree;
};

site& the_site() {
  static site s;
  return s;
}

std::string_view file_for(const benchmark::State& state) { return state.range(0) == 0 ? "app.css" : "small.txt"; }

stet::static_options bench_options() {
  stet::static_options o;
  o.settle_time = std::chrono::milliseconds(0);
  return o;
}

void run_respond(benchmark::State& state, stet::static_files& files, fake_request& req, std::string_view path) {
  stet::request& r = req.get();
  benchmark::DoNotOptimize(files.respond(r, path));  // warm
  const std::uint64_t before = stet::test::thread_allocations();
  for (auto _ : state) {
    stet::response res = files.respond(r, path);
    benchmark::DoNotOptimize(res.body().data());
  }
  report_allocations(state, before);
}

void BM_CachedHit(benchmark::State& state) {
  const std::string_view path = file_for(state);
  stet::static_files files(the_site().tree.root().string(), bench_options());
  fake_request req("/static/" + std::string(path));
  run_respond(state, files, req, path);
}
BENCHMARK(BM_CachedHit)->Arg(0)->Arg(1)->ArgName("small");

void BM_CachedHitWithinRevalidateInterval(benchmark::State& state) {
  const std::string_view path = file_for(state);
  stet::static_options o = bench_options();
  o.revalidate_interval = std::chrono::seconds(60);
  stet::static_files files(the_site().tree.root().string(), o);
  fake_request req("/static/" + std::string(path));
  run_respond(state, files, req, path);
}
BENCHMARK(BM_CachedHitWithinRevalidateInterval)->Arg(0)->Arg(1)->ArgName("small");

void BM_Conditional304(benchmark::State& state) {
  const std::string_view path = file_for(state);
  stet::static_files files(the_site().tree.root().string(), bench_options());
  fake_request probe("/static/" + std::string(path));
  const std::string etag(*files.respond(probe.get(), path).header("ETag"));
  fake_request req("/static/" + std::string(path));
  req.header("If-None-Match", etag);
  run_respond(state, files, req, path);
}
BENCHMARK(BM_Conditional304)->Arg(0)->ArgName("small");

// A budget of 0 caches nothing: every request opens, reads and closes the file.
void BM_Uncached(benchmark::State& state) {
  const std::string_view path = file_for(state);
  stet::static_options o = bench_options();
  o.cache_budget = 0;
  stet::static_files files(the_site().tree.root().string(), o);
  fake_request req("/static/" + std::string(path));
  run_respond(state, files, req, path);
}
BENCHMARK(BM_Uncached)->Arg(0)->Arg(1)->ArgName("small");

void BM_StaticUrlMemoised(benchmark::State& state) {
  stet::static_files files(the_site().tree.root().string(), bench_options());
  benchmark::DoNotOptimize(files.static_url("app.css"));
  const std::uint64_t before = stet::test::thread_allocations();
  for (auto _ : state) benchmark::DoNotOptimize(files.static_url("app.css"));
  report_allocations(state, before);
}
BENCHMARK(BM_StaticUrlMemoised);

// What a server without the memo does for every `?_hash=` URL: read the file and hash it.
void BM_StaticUrlHashPerCall(benchmark::State& state) {
  const std::string path = the_site().tree.path("app.css").string();
  std::string bytes(83 * 1024, '\0');
  const std::uint64_t before = stet::test::thread_allocations();
  for (auto _ : state) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    const ssize_t n = ::read(fd, bytes.data(), bytes.size());
    ::close(fd);
    const auto digest = stet::detail::hash_bytes(std::string_view(bytes.data(), static_cast<std::size_t>(n)));
    std::string url = "/static/app.css?_hash=";
    url.append(digest->data(), digest->size());
    benchmark::DoNotOptimize(url);
  }
  report_allocations(state, before);
}
BENCHMARK(BM_StaticUrlHashPerCall);

}  // namespace

BENCHMARK_MAIN();
