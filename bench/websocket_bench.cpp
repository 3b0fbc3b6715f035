// WebSocket frame codec: client frames parsed and unmasked (in place, and
// assembled from fragments), text validated, and the cost of writing server
// frames (a head, a close frame, a shared frame for publish) and of
// permessage-deflate. Bytes/s count payload bytes.
#include "support/alloc_counter.hpp"
#include "support/websocket_frames.hpp"
#include "websocket/deflate_stream.hpp"
#include "websocket/frame_writer.hpp"
#include "websocket/message_reader.hpp"
#include "websocket/unmask.hpp"

#include <benchmark/benchmark.h>

#include <string>

namespace {

namespace ws = stet::detail::ws;

void report(benchmark::State& state, std::uint64_t allocations_before, std::size_t payload_per_iteration) {
  state.counters["allocs/op"] = benchmark::Counter(
      static_cast<double>(stet::test::thread_allocations() - allocations_before), benchmark::Counter::kAvgIterations);
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * payload_per_iteration));
}

// A buffer of client frames carrying `total` bytes of `size`-byte messages
// (at least one), each cut into `fragments` frames.
std::string client_stream(std::size_t size, std::size_t fragments, char fill, std::array<std::uint8_t, 4> mask) {
  const std::size_t messages = std::max<std::size_t>(1, (std::size_t{1} << 20) / std::max<std::size_t>(size, 1));
  const std::string payload(size, fill);
  const std::size_t piece = (size + fragments - 1) / fragments;
  std::string one;
  for (std::size_t at = 0, i = 0; i < fragments; ++i, at += piece) {
    const bool first = i == 0;
    const bool last = i + 1 == fragments;
    const auto head = static_cast<std::uint8_t>((last ? 0x80 : 0) | (first ? (fill == 't' ? 1 : 2) : 0));
    one += stet::test::ws::frame_bytes(head, std::string_view(payload).substr(std::min(at, size), piece), mask);
  }
  std::string out;
  for (std::size_t i = 0; i < messages; ++i) out += one;
  return out;
}

// Reads every message in `stream` per iteration. Unmasking flips the
// payloads in place, so the stream stays a valid (binary) stream each pass;
// text uses a zero mask so that its bytes stay ASCII.
void read_all(benchmark::State& state, std::string stream, const ws::reader_limits& limits) {
  ws::message_reader reader(limits);
  std::size_t payload = 0;
  const std::uint64_t before = stet::test::thread_allocations();
  bool first = true;
  for (auto _ : state) {
    std::size_t at = 0;
    while (at < stream.size()) {
      const ws::message_reader::result r = reader.feed({stream.data() + at, stream.size() - at});
      if (r.what == ws::message_reader::event::failed) state.SkipWithError("reader failed");
      if (r.what == ws::message_reader::event::message) {
        benchmark::DoNotOptimize(r.payload.data());
        if (first) payload += r.payload.size();
      }
      at += r.consumed;
      if (r.what == ws::message_reader::event::need_more || r.what == ws::message_reader::event::failed) break;
    }
    first = false;
  }
  report(state, before, payload);
}

ws::reader_limits bench_limits(std::size_t in_place) {
  ws::reader_limits l;
  l.max_message_bytes = l.max_frame_bytes = 2 << 20;
  l.in_place_bytes = in_place;
  l.retain_bytes = 2 << 20;
  return l;
}

void BM_ReadBinaryInPlace(benchmark::State& state) {
  const auto size = static_cast<std::size_t>(state.range(0));
  read_all(state, client_stream(size, 1, 'b', stet::test::ws::default_mask), bench_limits(2 << 20));
}
BENCHMARK(BM_ReadBinaryInPlace)->Arg(32)->Arg(1024)->Arg(16 << 10)->Arg(1 << 20);

void BM_ReadBinaryAssembled(benchmark::State& state) {
  const auto size = static_cast<std::size_t>(state.range(0));
  read_all(state, client_stream(size, 4, 'b', stet::test::ws::default_mask), bench_limits(2 << 20));
}
BENCHMARK(BM_ReadBinaryAssembled)->Arg(1024)->Arg(16 << 10)->Arg(1 << 20);

void BM_ReadTextInPlace(benchmark::State& state) {
  const auto size = static_cast<std::size_t>(state.range(0));
  read_all(state, client_stream(size, 1, 't', {0, 0, 0, 0}), bench_limits(2 << 20));
}
BENCHMARK(BM_ReadTextInPlace)->Arg(32)->Arg(16 << 10);

void BM_Unmask(benchmark::State& state) {
  std::string data(static_cast<std::size_t>(state.range(0)), 'u');
  const std::uint64_t before = stet::test::thread_allocations();
  std::size_t phase = 0;
  for (auto _ : state) {
    phase = ws::unmask({data.data() + 1, data.size() - 1}, stet::test::ws::default_mask, phase);  // unaligned start
    benchmark::DoNotOptimize(data.data());
  }
  report(state, before, data.size() - 1);
}
BENCHMARK(BM_Unmask)->Arg(64)->Arg(4096)->Arg(1 << 20);

void BM_WriteFrameHead(benchmark::State& state) {
  const std::uint64_t before = stet::test::thread_allocations();
  std::uint64_t length = 100;
  for (auto _ : state) {
    benchmark::DoNotOptimize(ws::make_frame_head(ws::opcode::text, length));
    length = (length * 7 + 13) & 0x3ffff;  // all three length forms
  }
  report(state, before, 0);
}
BENCHMARK(BM_WriteFrameHead);

void BM_WriteCloseFrame(benchmark::State& state) {
  const std::uint64_t before = stet::test::thread_allocations();
  for (auto _ : state) benchmark::DoNotOptimize(ws::make_close_frame(ws::close_code::going_away, "server stopping"));
  report(state, before, 0);
}
BENCHMARK(BM_WriteCloseFrame);

void BM_WriteSharedFrame(benchmark::State& state) {
  const std::string payload(static_cast<std::size_t>(state.range(0)), 's');
  const std::uint64_t before = stet::test::thread_allocations();
  for (auto _ : state) benchmark::DoNotOptimize(ws::make_shared_frame(ws::opcode::text, payload));
  report(state, before, payload.size());
}
BENCHMARK(BM_WriteSharedFrame)->Arg(32)->Arg(16 << 10);

std::string chat_text(std::size_t n) {
  std::string s;
  while (s.size() < n) s += "{\"room\":\"lobby\",\"from\":\"user42\",\"text\":\"hello there, how is it going?\"}\n";
  s.resize(n);
  return s;
}

void BM_DeflateMessage(benchmark::State& state) {
  const std::string message = chat_text(static_cast<std::size_t>(state.range(0)));
  ws::deflater compressor(15, 1, 8, false);
  std::string out;
  const std::uint64_t before = stet::test::thread_allocations();
  for (auto _ : state) {
    out.clear();
    compressor.compress(message, out);
    benchmark::DoNotOptimize(out.data());
  }
  report(state, before, message.size());
  state.counters["ratio"] = static_cast<double>(out.size()) / static_cast<double>(message.size());
}
BENCHMARK(BM_DeflateMessage)->Arg(32)->Arg(16 << 10);

void BM_InflateMessage(benchmark::State& state) {
  const std::string message = chat_text(static_cast<std::size_t>(state.range(0)));
  ws::deflater compressor(15, 1, 8, true);
  std::string compressed;
  compressor.compress(message, compressed);
  ws::inflater decompressor(15, true);
  std::string out;
  const std::uint64_t before = stet::test::thread_allocations();
  for (auto _ : state) {
    out.clear();
    decompressor.inflate(compressed, out, 1 << 20);
    decompressor.finish(out, 1 << 20);
    benchmark::DoNotOptimize(out.data());
  }
  report(state, before, message.size());
}
BENCHMARK(BM_InflateMessage)->Arg(32)->Arg(16 << 10);

}  // namespace

BENCHMARK_MAIN();
