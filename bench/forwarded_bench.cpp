// What finding the client costs per request: resolve_client_origin() for an
// untrusted peer (the default: nobody is trusted), behind nginx
// (X-Forwarded-For with a spoofed entry, X-Forwarded-Proto) and behind an
// RFC 7239 proxy (two Forwarded elements), among 12 other header fields; and
// parse_proxy_header() for a PROXY v1 line and a v2 header with two TLVs.

#include "net/accept/proxy_protocol.hpp"
#include "request/forwarded.hpp"
#include "support/alloc_counter.hpp"

#include <benchmark/benchmark.h>

#include <string>
#include <utility>
#include <vector>

namespace {

const stet::detail::proxy_trust& trust() {
  static const stet::detail::proxy_trust t =
      stet::detail::proxy_trust::compile(std::vector<std::string>{"10.0.0.0/8", "fd00::/8", "unix"}).trust;
  return t;
}

std::vector<stet::header_field> browser_fields(std::vector<std::pair<const char*, const char*>> extra) {
  std::vector<stet::header_field> fields = {
      {"Host", "shop.example"},
      {"User-Agent", "Mozilla/5.0 (X11; Linux x86_64)"},
      {"Accept", "text/html,*/*;q=0.8"},
      {"Accept-Language", "en-GB,en;q=0.9"},
      {"Accept-Encoding", "gzip, br"},
      {"Connection", "keep-alive"},
      {"Cookie", "session=abc.def; theme=dark"},
      {"Upgrade-Insecure-Requests", "1"},
      {"Sec-Fetch-Dest", "document"},
      {"Sec-Fetch-Mode", "navigate"},
      {"Sec-Fetch-Site", "none"},
      {"Cache-Control", "max-age=0"},
  };
  for (const auto& [name, value] : extra) fields.push_back({name, value});
  return fields;
}

void resolve(benchmark::State& state, const std::vector<stet::header_field>& fields, const stet::endpoint& peer) {
  const std::uint64_t before = stet::test::thread_allocations();
  for (auto _ : state) {
    const stet::detail::client_origin o =
        stet::detail::resolve_client_origin({fields, peer, "http", "shop.example"}, trust());
    benchmark::DoNotOptimize(o.address_text().data());
  }
  state.counters["allocs/op"] = benchmark::Counter(static_cast<double>(stet::test::thread_allocations() - before),
                                                   benchmark::Counter::kAvgIterations);
}

void BM_UntrustedPeer(benchmark::State& state) {
  resolve(state, browser_fields({{"X-Forwarded-For", "6.6.6.6"}}), stet::endpoint::parse("203.0.113.9", 50000));
}

void BM_XForwardedFor(benchmark::State& state) {
  resolve(state, browser_fields({{"X-Forwarded-For", "6.6.6.6, 198.51.100.7"}, {"X-Forwarded-Proto", "https"}}),
          stet::endpoint::parse("10.0.0.1", 50000));
}

void BM_Forwarded(benchmark::State& state) {
  resolve(state, browser_fields({{"Forwarded", "for=198.51.100.7;proto=https;host=shop.example, for=\"[fd00::2]\""}}),
          stet::endpoint::parse("10.0.0.1", 50000));
}

void parse(benchmark::State& state, const std::string& header) {
  if (stet::detail::parse_proxy_header(header).what != stet::detail::proxy_header::status::done) {
    state.SkipWithError("not a complete header");
    return;
  }
  const std::uint64_t before = stet::test::thread_allocations();
  for (auto _ : state) benchmark::DoNotOptimize(stet::detail::parse_proxy_header(header).consumed);
  state.counters["allocs/op"] = benchmark::Counter(static_cast<double>(stet::test::thread_allocations() - before),
                                                   benchmark::Counter::kAvgIterations);
}

void BM_ProxyV1(benchmark::State& state) {
  parse(state, "PROXY TCP4 198.51.100.7 10.0.0.1 56324 443\r\nGET / HTTP/1.1\r\n");
}

void BM_ProxyV2(benchmark::State& state) {
  std::string h("\r\n\r\n\0\r\nQUIT\n\x21\x11\x00\x1b", 16);
  h += std::string("\xc6\x33\x64\x07\x0a\x00\x00\x01\xdc\x04\x01\xbb", 12);
  h += std::string("\x01\x00\x02h2\x02\x00\x07shop.ex", 15);
  h += "GET / HTTP/1.1\r\n";
  parse(state, h);
}

}  // namespace

BENCHMARK(BM_UntrustedPeer);
BENCHMARK(BM_XForwardedFor);
BENCHMARK(BM_Forwarded);
BENCHMARK(BM_ProxyV1);
BENCHMARK(BM_ProxyV2);
BENCHMARK_MAIN();
