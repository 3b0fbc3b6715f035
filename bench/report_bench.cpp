// stet-server's GET /report.json (examples/stet-server/report.cpp): building the
// ~60 KB document with the JSON writer, and compressing those bytes the way
// stet does (a pooled state, the whole body in one call) against the way
// nginx's filters do (a new zlib/brotli state per body, the body fed in 32 KiB
// buffers, output taken in 4 KiB buffers or from brotli's own buffer), at the
// same parameters (gzip level 1, brotli quality 6, window sized to the body).
// bench/e2e/compression.sh measures the same comparison end to end.
#include <stet/json.hpp>

#include "report.hpp"
#include "response/compress/compress.hpp"
#include "support/alloc_counter.hpp"

#include <benchmark/benchmark.h>
#include <brotli/encode.h>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace {

using stet::content_coding;

const std::string& report_body() {
  static const std::string body = [] {
    std::string out;
    stet::json::writer w(out);
    stet_server::write_report(w);
    return out;
  }();
  return body;
}

void count(benchmark::State& state, std::size_t in, std::size_t out, std::uint64_t allocations_before) {
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * in));
  state.counters["out_bytes"] = static_cast<double>(out);
  state.counters["allocs/op"] = benchmark::Counter(
      static_cast<double>(stet::test::thread_allocations() - allocations_before), benchmark::Counter::kAvgIterations);
}

// What the handler does per request, into a buffer that has reached its size
// (a pooled body buffer in the server).
void BM_ReportBuild(benchmark::State& state) {
  std::string out;
  out.reserve(report_body().size());
  const std::uint64_t before = stet::test::thread_allocations();
  for (auto _ : state) {
    out.clear();
    stet::json::writer w(out);
    stet_server::write_report(w);
    w.flush();
    benchmark::DoNotOptimize(out.data());
  }
  count(state, out.size(), out.size(), before);
}
BENCHMARK(BM_ReportBuild);

void BM_ReportStetCompress(benchmark::State& state, content_coding c) {
  const std::string& body = report_body();
  const stet::detail::encoder_params p{};
  std::string out;
  stet::detail::compress_body(c, p, body, out);  // warm: the pool holds a state, out its size
  const std::uint64_t before = stet::test::thread_allocations();
  for (auto _ : state) {
    out.clear();
    if (!stet::detail::compress_body(c, p, body, out)) state.SkipWithError("compression failed");
    benchmark::DoNotOptimize(out.data());
  }
  count(state, body.size(), out.size(), before);
}
BENCHMARK_CAPTURE(BM_ReportStetCompress, gzip, content_coding::gzip);
BENCHMARK_CAPTURE(BM_ReportStetCompress, br, content_coding::br);

constexpr std::size_t nginx_input_buffer = 32 * 1024;  // output_buffers 2 32k
constexpr std::size_t nginx_gzip_buffer = 4 * 1024;    // gzip_buffers 32 4k

// ngx_http_gzip_filter_module: deflateInit2 per body (raw deflate; nginx
// writes the gzip header and trailer and keeps the crc32 itself), wbits and
// memLevel lowered for small bodies exactly as nginx does.
std::size_t nginx_like_gzip(std::string_view body, std::string& out) {
  int wbits = 15;
  int mem_level = 8;
  while (body.size() < (std::size_t{1} << (wbits - 1)) - 262) {
    --wbits;
    --mem_level;
  }
  mem_level = std::max(mem_level, 1);
  z_stream z{};
  deflateInit2(&z, 1, Z_DEFLATED, -wbits, mem_level, Z_DEFAULT_STRATEGY);
  static constexpr std::array<char, 10> header = {'\x1f', '\x8b', 8, 0, 0, 0, 0, 0, 0, 3};
  out.append(header.data(), header.size());
  uLong crc = crc32(0, nullptr, 0);
  std::array<char, nginx_gzip_buffer> buffer;
  for (std::size_t at = 0; at < body.size();) {
    const std::size_t n = std::min(nginx_input_buffer, body.size() - at);
    const bool last = at + n == body.size();
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(body.data() + at));
    z.avail_in = static_cast<uInt>(n);
    crc = crc32(crc, z.next_in, z.avail_in);
    int rc = Z_OK;
    do {
      z.next_out = reinterpret_cast<Bytef*>(buffer.data());
      z.avail_out = static_cast<uInt>(buffer.size());
      rc = deflate(&z, last ? Z_FINISH : Z_NO_FLUSH);
      out.append(buffer.data(), buffer.size() - z.avail_out);
    } while (z.avail_out == 0 || (last && rc != Z_STREAM_END));
    at += n;
  }
  const std::array<std::uint32_t, 2> trailer = {static_cast<std::uint32_t>(crc),
                                                static_cast<std::uint32_t>(body.size())};
  out.append(reinterpret_cast<const char*>(trailer.data()), sizeof trailer);
  deflateEnd(&z);
  return out.size();
}

// ngx_http_brotli_filter_module: a new instance per body, lgwin the smallest
// window that holds the body, input fed buffer by buffer, output taken from
// the encoder's own buffer (BrotliEncoderTakeOutput).
std::size_t nginx_like_br(std::string_view body, std::string& out) {
  std::uint32_t wbits = BROTLI_MIN_WINDOW_BITS;
  while (wbits < 19 && body.size() > (std::size_t{1} << wbits)) ++wbits;
  BrotliEncoderState* s = BrotliEncoderCreateInstance(nullptr, nullptr, nullptr);
  BrotliEncoderSetParameter(s, BROTLI_PARAM_QUALITY, 6);
  BrotliEncoderSetParameter(s, BROTLI_PARAM_LGWIN, wbits);
  for (std::size_t at = 0; at < body.size();) {
    const std::size_t n = std::min(nginx_input_buffer, body.size() - at);
    const bool last = at + n == body.size();
    std::size_t available_in = n;
    const auto* next_in = reinterpret_cast<const std::uint8_t*>(body.data() + at);
    do {
      std::size_t available_out = 0;
      BrotliEncoderCompressStream(s, last ? BROTLI_OPERATION_FINISH : BROTLI_OPERATION_PROCESS, &available_in, &next_in,
                                  &available_out, nullptr, nullptr);
      std::size_t size = 0;
      const std::uint8_t* taken = BrotliEncoderTakeOutput(s, &size);
      out.append(reinterpret_cast<const char*>(taken), size);
    } while (available_in != 0 || BrotliEncoderHasMoreOutput(s) == BROTLI_TRUE ||
             (last && BrotliEncoderIsFinished(s) != BROTLI_TRUE));
    at += n;
  }
  BrotliEncoderDestroyInstance(s);
  return out.size();
}

template <std::size_t (*Compress)(std::string_view, std::string&)>
void BM_ReportNginxLike(benchmark::State& state) {
  const std::string& body = report_body();
  std::string out;
  Compress(body, out);
  const std::uint64_t before = stet::test::thread_allocations();
  for (auto _ : state) {
    out.clear();
    benchmark::DoNotOptimize(Compress(body, out));
  }
  count(state, body.size(), out.size(), before);
}
BENCHMARK_TEMPLATE(BM_ReportNginxLike, nginx_like_gzip)->Name("BM_ReportNginxLikeCompress/gzip");
BENCHMARK_TEMPLATE(BM_ReportNginxLike, nginx_like_br)->Name("BM_ReportNginxLikeCompress/br");

}  // namespace

BENCHMARK_MAIN();
