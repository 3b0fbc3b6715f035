// Request memos against the uncached paths they replace, on one realistic
// browser request: 16 header fields, a 346-byte Cookie header with 8 cookies,
// a 5-parameter query. Per iteration = one request: cookies read 3 times,
// headers 10 times, query args 30 times; arena released and memos forgotten
// between requests exactly as the connection does.
//
// allocs/op counts global operator new; ossl_allocs/op counts OpenSSL's own
// mallocs (CRYPTO_set_mem_functions), which operator new never sees.

#include <stet/request.hpp>
#include <stet/signer.hpp>

#include "http/base64url.hpp"
#include "http/token.hpp"
#include "request/cookie_cache.hpp"
#include "support/alloc_counter.hpp"
#include "support/request_builder.hpp"

#include <benchmark/benchmark.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <array>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

thread_local std::uint64_t ossl_allocations = 0;

void* counting_malloc(std::size_t n, const char*, int) {
  ++ossl_allocations;
  return std::malloc(n);
}
void* counting_realloc(void* p, std::size_t n, const char*, int) {
  ++ossl_allocations;
  return std::realloc(p, n);
}
void counting_free(void* p, const char*, int) { std::free(p); }

struct counters {
  std::uint64_t news = stet::test::thread_allocations();
  std::uint64_t ossl = ossl_allocations;

  void report(benchmark::State& state) const {
    state.counters["allocs/op"] = benchmark::Counter(static_cast<double>(stet::test::thread_allocations() - news),
                                                     benchmark::Counter::kAvgIterations);
    state.counters["ossl_allocs/op"] =
        benchmark::Counter(static_cast<double>(ossl_allocations - ossl), benchmark::Counter::kAvgIterations);
  }
};

const stet::signer& actor_signer() {
  static const stet::signer s({"bench-secret-0123456789abcdef"}, "actor");
  return s;
}

std::string cookie_header() {
  std::string actor = "YWxpY2U";  // base64url("alice"), as set_signed_cookie() writes it
  actor = actor_signer().sign(actor);
  return "_ga=GA1.1.1234567890.1700000000; _ga_ABCDEF1234=GS1.1.1700000000.5.1.1700000100.0.0.0; "
         "csrftoken=Xk3vQ9pL2mN8rT5wY7zA1bC4dE6fG0hJXk3vQ9pL2mN8rT5wY7zA1bC4dE6fG0hJ; "
         "sessionid=7f3a9c2e5b8d1f4a6c0e9b2d5f8a1c3e7f3a9c2e5b8d1f4a; theme=dark; lang=en-US; "
         "consent=\"analytics:1|ads:0|functional:1\"; actor=" +
         actor;
}

std::vector<std::pair<std::string, std::string>> browser_fields() {
  return {
      {"Host", "www.example.com"},
      {"Connection", "keep-alive"},
      {"sec-ch-ua", "\"Chromium\";v=\"124\", \"Google Chrome\";v=\"124\", \"Not-A.Brand\";v=\"99\""},
      {"sec-ch-ua-mobile", "?0"},
      {"sec-ch-ua-platform", "\"Linux\""},
      {"Upgrade-Insecure-Requests", "1"},
      {"User-Agent",
       "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36"},
      {"Accept", "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8"},
      {"Sec-Fetch-Site", "same-origin"},
      {"Sec-Fetch-Mode", "navigate"},
      {"Sec-Fetch-User", "?1"},
      {"Sec-Fetch-Dest", "document"},
      {"Referer", "https://www.example.com/search?q=stet"},
      {"Accept-Encoding", "gzip, deflate, br"},
      {"Accept-Language", "en-US,en;q=0.9"},
      {"Cookie", cookie_header()},
  };
}

constexpr std::string_view query_string = "q=hello+world&page=2&sort=-created&tag=c%2B%2B&lang=en";

constexpr std::array<std::string_view, 10> header_reads = {
    "Host",    "User-Agent",     "accept",           "Accept-Language", "cookie",
    "Referer", "sec-fetch-mode", "X-Requested-With", "Accept-Encoding", "Connection"};
constexpr std::array<std::string_view, 3> cookie_reads = {"sessionid", "csrftoken", "actor"};
constexpr std::array<std::string_view, 6> query_names = {"q", "page", "sort", "tag", "lang", "missing"};

stet::test::request_builder& loaded_request() {
  static stet::test::request_builder b;
  static const bool loaded = (b.load(browser_fields(), query_string), true);
  (void)loaded;
  return b;
}

// --- cookies: 3 reads per request ---

void BM_Cookies_ParseEveryRead(benchmark::State& state) {
  stet::test::request_builder& b = loaded_request();
  const counters c;
  for (auto _ : state) {
    stet::request& req = b.again();
    const std::string_view header = *req.header("cookie");
    for (std::string_view name : cookie_reads) {
      benchmark::DoNotOptimize(stet::parse_cookie_header(header, req.arena()).get(name));
    }
  }
  c.report(state);
}
BENCHMARK(BM_Cookies_ParseEveryRead);

void BM_Cookies_MemoNoCache(benchmark::State& state) {
  stet::test::request_builder& b = loaded_request();
  stet::detail::cookie_cache_enable(false);
  const counters c;
  for (auto _ : state) {
    stet::request& req = b.again();
    for (std::string_view name : cookie_reads) benchmark::DoNotOptimize(req.cookies().get(name));
  }
  c.report(state);
  stet::detail::cookie_cache_enable(true);
}
BENCHMARK(BM_Cookies_MemoNoCache);

void BM_Cookies_MemoAndThreadCache(benchmark::State& state) {
  stet::test::request_builder& b = loaded_request();
  (void)b.again().cookies();
  const counters c;
  for (auto _ : state) {
    stet::request& req = b.again();
    for (std::string_view name : cookie_reads) benchmark::DoNotOptimize(req.cookies().get(name));
  }
  c.report(state);
}
BENCHMARK(BM_Cookies_MemoAndThreadCache);

// --- headers: 10 reads per request ---

// What a dict-of-lowercased-headers request object does when it is rebuilt on
// every access: one std::string per name.
void BM_Headers_LowercasedCopyEveryRead(benchmark::State& state) {
  stet::test::request_builder& b = loaded_request();
  const counters c;
  for (auto _ : state) {
    stet::request& req = b.again();
    for (std::string_view wanted : header_reads) {
      std::vector<std::pair<std::string, std::string_view>> map;
      for (const stet::header_field& f : req.header_fields()) {
        std::string name(f.name);
        for (char& ch : name) ch = stet::detail::ascii_lower(ch);
        map.emplace_back(std::move(name), f.value);
      }
      std::string key(wanted);
      for (char& ch : key) ch = stet::detail::ascii_lower(ch);
      for (const auto& [name, value] : map) {
        if (name == key) {
          benchmark::DoNotOptimize(value);
          break;
        }
      }
    }
  }
  c.report(state);
}
BENCHMARK(BM_Headers_LowercasedCopyEveryRead);

void BM_Headers_IndexEveryRead(benchmark::State& state) {
  stet::test::request_builder& b = loaded_request();
  const counters c;
  for (auto _ : state) {
    stet::request& req = b.again();
    for (std::string_view name : header_reads) {
      benchmark::DoNotOptimize(stet::index_headers(req.header_fields(), req.arena()).get(name));
    }
  }
  c.report(state);
}
BENCHMARK(BM_Headers_IndexEveryRead);

void BM_Headers_LinearScanEveryRead(benchmark::State& state) {
  stet::test::request_builder& b = loaded_request();
  const counters c;
  for (auto _ : state) {
    stet::request& req = b.again();
    for (std::string_view name : header_reads) benchmark::DoNotOptimize(req.header(name));
  }
  c.report(state);
}
BENCHMARK(BM_Headers_LinearScanEveryRead);

void BM_Headers_Memo(benchmark::State& state) {
  stet::test::request_builder& b = loaded_request();
  (void)b.again().headers();
  const counters c;
  for (auto _ : state) {
    stet::request& req = b.again();
    for (std::string_view name : header_reads) benchmark::DoNotOptimize(req.headers().get(name));
  }
  c.report(state);
}
BENCHMARK(BM_Headers_Memo);

// --- query: 30 reads per request ---

void BM_Query_ParseEveryRead(benchmark::State& state) {
  stet::test::request_builder& b = loaded_request();
  const counters c;
  for (auto _ : state) {
    stet::request& req = b.again();
    for (int i = 0; i < 30; ++i) {
      benchmark::DoNotOptimize(stet::parse_urlencoded(req.query_string(), req.arena()).get(query_names[i % 6]));
    }
  }
  c.report(state);
}
BENCHMARK(BM_Query_ParseEveryRead);

void BM_Query_Memo(benchmark::State& state) {
  stet::test::request_builder& b = loaded_request();
  const counters c;
  for (auto _ : state) {
    stet::request& req = b.again();
    for (int i = 0; i < 30; ++i) benchmark::DoNotOptimize(req.query().get(query_names[i % 6]));
  }
  c.report(state);
}
BENCHMARK(BM_Query_Memo);

// --- sign + verify of one cookie value ---

constexpr std::string_view secret = "bench-secret-0123456789abcdef";
constexpr std::string_view value = "YWxpY2U";

std::string framed(std::string_view payload) {
  std::string in = "pactor";
  in.push_back('\0');
  in.append(payload);
  return in;
}

std::array<char, 43> encode(const unsigned char* mac) {
  std::array<char, 43> out{};
  stet::detail::base64url_encode({mac, 32}, out.data());
  return out;
}

// Without a derived key, the usual way: one-shot HMAC(), which fetches the
// digest and runs the key schedule on every call.
std::array<char, 43> oneshot_signature(std::string_view payload) {
  const std::string in = framed(payload);
  unsigned char mac[32];
  unsigned int len = 0;
  HMAC(EVP_sha256(), secret.data(), static_cast<int>(secret.size()), reinterpret_cast<const unsigned char*>(in.data()),
       in.size(), mac, &len);
  return encode(mac);
}

void BM_SignVerify_OneShotHmac(benchmark::State& state) {
  const counters c;
  for (auto _ : state) {
    std::string token(value);
    token.push_back('.');
    const std::array<char, 43> sig = oneshot_signature(value);
    token.append(sig.data(), sig.size());
    const std::string_view payload = std::string_view(token).substr(0, token.rfind('.'));
    const std::array<char, 43> expected = oneshot_signature(payload);
    benchmark::DoNotOptimize(CRYPTO_memcmp(expected.data(), token.data() + payload.size() + 1, 43) == 0);
  }
  c.report(state);
}
BENCHMARK(BM_SignVerify_OneShotHmac);

// Without a derived key, EVP style: the MAC algorithm fetched once, but a fresh
// context keyed (and the namespace absorbed) on every call.
std::array<char, 43> rekeyed_signature(EVP_MAC* hmac, std::string_view payload) {
  EVP_MAC_CTX* ctx = EVP_MAC_CTX_new(hmac);
  char digest[] = "SHA256";
  const OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest, 0),
                               OSSL_PARAM_construct_end()};
  EVP_MAC_init(ctx, reinterpret_cast<const unsigned char*>(secret.data()), secret.size(), params);
  const std::string in = framed(payload);
  EVP_MAC_update(ctx, reinterpret_cast<const unsigned char*>(in.data()), in.size());
  unsigned char mac[32];
  std::size_t len = 0;
  EVP_MAC_final(ctx, mac, &len, sizeof mac);
  EVP_MAC_CTX_free(ctx);
  return encode(mac);
}

void BM_SignVerify_RekeyEveryCall(benchmark::State& state) {
  EVP_MAC* hmac = EVP_MAC_fetch(nullptr, "HMAC", nullptr);
  const counters c;
  for (auto _ : state) {
    std::string token(value);
    token.push_back('.');
    const std::array<char, 43> sig = rekeyed_signature(hmac, value);
    token.append(sig.data(), sig.size());
    const std::string_view payload = std::string_view(token).substr(0, token.rfind('.'));
    const std::array<char, 43> expected = rekeyed_signature(hmac, payload);
    benchmark::DoNotOptimize(CRYPTO_memcmp(expected.data(), token.data() + payload.size() + 1, 43) == 0);
  }
  c.report(state);
  EVP_MAC_free(hmac);
}
BENCHMARK(BM_SignVerify_RekeyEveryCall);

void BM_SignVerify_DerivedKey(benchmark::State& state) {
  const stet::signer& s = actor_signer();
  const counters c;
  for (auto _ : state) {
    const std::string token = s.sign(value);
    benchmark::DoNotOptimize(s.verify(token));
  }
  c.report(state);
}
BENCHMARK(BM_SignVerify_DerivedKey);

void BM_SignedCookie_AbsentNoMac(benchmark::State& state) {
  stet::test::request_builder& b = loaded_request();
  const counters c;
  for (auto _ : state) {
    stet::request& req = b.again();
    benchmark::DoNotOptimize(req.signed_cookie(actor_signer(), "not-sent"));
  }
  c.report(state);
}
BENCHMARK(BM_SignedCookie_AbsentNoMac);

void BM_SignedCookie_Read(benchmark::State& state) {
  stet::test::request_builder& b = loaded_request();
  const counters c;
  for (auto _ : state) {
    stet::request& req = b.again();
    benchmark::DoNotOptimize(req.signed_cookie(actor_signer(), "actor"));
  }
  c.report(state);
}
BENCHMARK(BM_SignedCookie_Read);

}  // namespace

int main(int argc, char** argv) {
  // Must precede OpenSSL's first allocation.
  CRYPTO_set_mem_functions(counting_malloc, counting_realloc, counting_free);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
