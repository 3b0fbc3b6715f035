// What one idle TLS connection holds in OpenSSL, byte by byte: a server
// session from stet's own tls_context (the configuration a listener gets)
// completes a handshake over memory with a client session in this process,
// answers one request, and then sits idle. Every allocation OpenSSL makes is
// routed through CRYPTO_set_mem_functions and tagged with the side (server or
// client) whose call made it, so the server's live bytes can be listed by the
// OpenSSL source line that allocated them.
//
//   build-release/bench/tls_memory_bench               # Google Benchmark counters
//   build-release/bench/tls_memory_bench --breakdown   # live bytes per allocation site
//
// The counters: `live_bytes` (requested bytes still held by the server session
// once idle), `heap_bytes` (the same in malloc chunks: usable size + header),
// `blocks`; per scenario (TLS 1.3 / 1.2, full or resumed, before and after
// what stet does once the handshake is over).
#include "tls/ticket_keys.hpp"
#include "tls/tls_context.hpp"
#include "tls/tls_engine.hpp"
#include "tls/tls_stats.hpp"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <benchmark/benchmark.h>
#include <fmt/format.h>
#include <malloc.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace {

enum class side : std::uint8_t { none, server, client };

struct block {
  std::size_t size;
  const char* file;
  int line;
  side by;
  std::uint64_t serial;  // allocation order
};

// The tracker's own table is allocated with operator new, never through OpenSSL.
struct tracker {
  std::unordered_map<void*, block> live;
  side now = side::none;
  std::uint64_t serial = 0;
};

tracker& tracked() {
  static tracker* t = new tracker();  // NOLINT: outlives every OpenSSL object, on purpose
  return *t;
}

void* tracked_malloc(std::size_t n, const char* file, int line) {
  void* p = std::malloc(n);
  if (p != nullptr) tracked().live[p] = {n, file, line, tracked().now, ++tracked().serial};
  return p;
}

void* tracked_realloc(void* old, std::size_t n, const char* file, int line) {
  if (old != nullptr) tracked().live.erase(old);
  void* p = std::realloc(old, n);
  if (p != nullptr) tracked().live[p] = {n, file, line, tracked().now, ++tracked().serial};
  return p;
}

void tracked_free(void* p, const char* /*file*/, int /*line*/) {
  if (p != nullptr) tracked().live.erase(p);
  std::free(p);
}

// Everything made between construction and destruction is counted for `who`.
class acting_as {
 public:
  explicit acting_as(side who) : before_(std::exchange(tracked().now, who)) {}
  acting_as(const acting_as&) = delete;
  acting_as& operator=(const acting_as&) = delete;
  ~acting_as() { tracked().now = before_; }

 private:
  side before_;
};

struct totals {
  std::size_t bytes = 0;
  std::size_t heap = 0;  // malloc's chunk: usable size plus its 8-byte header
  std::size_t blocks = 0;
  bool resumed = false;
};

// What the server side allocated after `since` and still holds.
totals server_totals(std::uint64_t since) {
  totals t;
  for (const auto& [p, b] : tracked().live) {
    if (b.by != side::server || b.serial <= since) continue;
    t.bytes += b.size;
    t.heap += malloc_usable_size(p) + sizeof(std::size_t);
    ++t.blocks;
  }
  return t;
}

// A self-signed EC P-256 certificate (what bench/e2e uses) in a temp dir.
struct certificate_files {
  std::filesystem::path dir;
  std::string cert;
  std::string key;

  certificate_files() {
    dir = std::filesystem::temp_directory_path() / fmt::format("stet-tls-memory-{}", ::getpid());
    std::filesystem::create_directories(dir);
    cert = (dir / "cert.pem").string();
    key = (dir / "key.pem").string();
    EVP_PKEY* pkey = EVP_EC_gen("P-256");
    X509* x = X509_new();
    ASN1_INTEGER_set(X509_get_serialNumber(x), 1);
    X509_gmtime_adj(X509_getm_notBefore(x), 0);
    X509_gmtime_adj(X509_getm_notAfter(x), 86400);
    X509_set_pubkey(x, pkey);
    X509_NAME* name = X509_get_subject_name(x);
    X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>("localhost"), -1, -1,
                               0);
    X509_set_issuer_name(x, name);
    X509_sign(x, pkey, EVP_sha256());
    FILE* f = std::fopen(cert.c_str(), "w");
    PEM_write_X509(f, x);
    std::fclose(f);
    f = std::fopen(key.c_str(), "w");
    PEM_write_PrivateKey(f, pkey, nullptr, nullptr, 0, nullptr, nullptr);
    std::fclose(f);
    X509_free(x);
    EVP_PKEY_free(pkey);
  }
  certificate_files(const certificate_files&) = delete;
  certificate_files& operator=(const certificate_files&) = delete;
  ~certificate_files() { std::filesystem::remove_all(dir); }
};

// One context per cache size, built once: what a listener holds for its whole life.
std::shared_ptr<const stet::detail::tls_context> server_context(std::size_t cache) {
  static certificate_files files;
  static std::map<std::size_t, std::shared_ptr<const stet::detail::tls_context>> built;
  if (auto it = built.find(cache); it != built.end()) return it->second;
  stet::tls_options options;
  options.certificates.push_back({files.cert, files.key, {}, {}});
  options.session_cache_size = cache;
  stet::config_error error;
  auto context = stet::detail::tls_context::build(options, stet::detail::ticket_keys::generated(std::chrono::hours(1)),
                                                  std::make_shared<stet::detail::tls_stats>(), error);
  if (!context) {
    std::fprintf(stderr, "tls_memory_bench: %s\n", error.message().c_str());
    std::exit(1);
  }
  built.emplace(cache, context);
  return context;
}

struct scenario {
  const char* name;
  int max_version;  // the client's
  bool resume;      // the client offers the session of an earlier connection
  std::size_t cache;
};

// A client over two memory BIOs, talking to a tls_engine.
class pair {
 public:
  pair(const std::shared_ptr<const stet::detail::tls_context>& context, SSL_CTX* client_ctx, SSL_SESSION* offer) {
    {
      acting_as as(side::server);
      server_.emplace(context);
    }
    acting_as as(side::client);
    client_ = SSL_new(client_ctx);
    to_client_ = BIO_new(BIO_s_mem());
    to_server_ = BIO_new(BIO_s_mem());
    SSL_set_bio(client_, to_client_, to_server_);
    SSL_set_connect_state(client_);
    SSL_ctrl(client_, SSL_CTRL_SET_TLSEXT_HOSTNAME, TLSEXT_NAMETYPE_host_name,
             const_cast<char*>("localhost"));  // NOLINT
    if (offer != nullptr) SSL_set_session(client_, offer);
  }
  pair(const pair&) = delete;
  pair& operator=(const pair&) = delete;
  ~pair() {
    {
      acting_as as(side::server);
      server_.reset();
    }
    acting_as as(side::client);
    // Freed without a shutdown, a session is marked not resumable.
    SSL_set_shutdown(client_, SSL_SENT_SHUTDOWN | SSL_RECEIVED_SHUTDOWN);
    SSL_free(client_);
  }

  bool handshake_and_one_request() {
    for (int round = 0; round < 20; ++round) {
      {
        acting_as as(side::client);
        SSL_do_handshake(client_);
      }
      server_step([this] { return server_->handshake(); });
      if (server_->handshake_done() && SSL_is_init_finished(client_) == 1) break;
    }
    if (!server_->handshake_done()) return false;
    const char request[] = "GET /plaintext HTTP/1.1\r\nHost: localhost\r\n\r\n";
    {
      acting_as as(side::client);
      SSL_write(client_, request, sizeof request - 1);
    }
    std::array<char, 4096> plain{};
    std::size_t n = 0;
    server_step([&] { return server_->read(plain, n); });
    const char answer[] = "HTTP/1.1 200 OK\r\nContent-Length: 13\r\n\r\nHello, World!";
    {
      acting_as as(side::server);
      server_->set_output(&out_);
      server_->write({answer, sizeof answer - 1});
    }
    deliver_to_client();
    acting_as as(side::client);
    std::array<char, 4096> got{};
    return SSL_read(client_, got.data(), got.size()) > 0;  // also reads the tickets
  }

  SSL* client() const noexcept { return client_; }
  stet::detail::tls_engine& server() { return *server_; }

 private:
  template <typename Step>
  void server_step(Step step) {
    std::string in;
    {
      acting_as as(side::client);
      char chunk[4096];
      int n = 0;
      while ((n = BIO_read(to_server_, chunk, sizeof chunk)) > 0) in.append(chunk, static_cast<std::size_t>(n));
    }
    acting_as as(side::server);
    server_->set_input(in.data(), in.size());
    server_->set_output(&out_);
    step();
    deliver_to_client();
  }

  void deliver_to_client() {
    acting_as as(side::client);
    if (!out_.empty()) BIO_write(to_client_, out_.data(), static_cast<int>(out_.size()));
    out_.clear();
  }

  std::optional<stet::detail::tls_engine> server_;
  SSL* client_ = nullptr;
  BIO* to_client_ = nullptr;
  BIO* to_server_ = nullptr;
  std::string out_;
};

SSL_CTX* client_context(int max_version) {
  SSL_CTX* ctx = SSL_CTX_new(TLS_client_method());
  SSL_CTX_set_max_proto_version(ctx, max_version);
  SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_CLIENT | SSL_SESS_CACHE_NO_INTERNAL_STORE);
  return ctx;
}

// The server's live allocations once the connection is idle; `sites` gets them by source line.
totals measure(const scenario& s, std::map<std::string, totals>* sites) {
  const auto context = server_context(s.cache);
  SSL_CTX* client_ctx = client_context(s.max_version);
  SSL_SESSION* offer = nullptr;
  if (s.resume) {
    pair first(context, client_ctx, nullptr);
    first.handshake_and_one_request();
    acting_as as(side::client);
    offer = SSL_get1_session(first.client());
  }
  totals idle;
  const std::uint64_t since = tracked().serial;
  {
    pair p(context, client_ctx, offer);
    if (!p.handshake_and_one_request()) {
      std::fprintf(stderr, "tls_memory_bench: %s: handshake failed\n", s.name);
      std::exit(1);
    }
    idle = server_totals(since);
    idle.resumed = p.server().info().resumed;
    if (sites != nullptr) {
      for (const auto& [ptr, b] : tracked().live) {
        if (b.by != side::server || b.serial <= since) continue;
        totals& t = (*sites)[fmt::format("{}:{}", b.file != nullptr ? b.file : "?", b.line)];
        t.bytes += b.size;
        t.heap += malloc_usable_size(ptr) + sizeof(std::size_t);
        ++t.blocks;
      }
    }
  }
  {
    acting_as as(side::client);
    SSL_SESSION_free(offer);
    SSL_CTX_free(client_ctx);
  }
  return idle;
}

const std::vector<scenario>& scenarios() {
  static const std::vector<scenario> all = {
      {"tls13_full", TLS1_3_VERSION, false, 20'000},     {"tls13_resumed", TLS1_3_VERSION, true, 20'000},
      {"tls12_full", TLS1_2_VERSION, false, 20'000},     {"tls12_resumed", TLS1_2_VERSION, true, 20'000},
      {"tls12_full_no_cache", TLS1_2_VERSION, false, 0},
  };
  return all;
}

// OpenSSL fills process-wide caches (algorithm fetches, names, properties)
// on first use; a few connections first keep those out of the figures.
void warm_up() {
  for (const scenario& s : scenarios()) measure(s, nullptr);
}

void idle_connection(benchmark::State& state, const scenario& s) {
  totals t;
  warm_up();
  for (auto _ : state) t = measure(s, nullptr);
  state.counters["live_bytes"] = static_cast<double>(t.bytes);
  state.counters["heap_bytes"] = static_cast<double>(t.heap);
  state.counters["blocks"] = static_cast<double>(t.blocks);
}

void print_breakdown() {
  warm_up();
  std::printf("sizeof(tls_engine) = %zu (inside the transport, not counted below)\n", sizeof(stet::detail::tls_engine));
  for (const scenario& s : scenarios()) {
    std::map<std::string, totals> sites;
    const totals t = measure(s, &sites);
    std::printf("\n%s%s: %zu bytes live in %zu blocks (%zu in malloc chunks)\n", s.name, t.resumed ? " (resumed)" : "",
                t.bytes, t.blocks, t.heap);
    std::vector<std::pair<std::string, totals>> sorted(sites.begin(), sites.end());
    std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.second.heap > b.second.heap; });
    for (const auto& [site, st] : sorted)
      std::printf("  %6zu %6zu %3zu  %s\n", st.bytes, st.heap, st.blocks, site.c_str());
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (CRYPTO_set_mem_functions(&tracked_malloc, &tracked_realloc, &tracked_free) != 1) {
    std::fprintf(stderr, "tls_memory_bench: OpenSSL allocated before main; cannot track it\n");
    return 1;
  }
  if (argc > 1 && std::string_view(argv[1]) == "--breakdown") {
    print_breakdown();
    return 0;
  }
  for (const scenario& s : scenarios()) {
    benchmark::RegisterBenchmark(fmt::format("TlsIdleMemory/{}", s.name).c_str(), idle_connection, s)->Iterations(20);
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
