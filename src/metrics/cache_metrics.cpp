#include "metrics/cache_metrics.hpp"

#include "counters/memo_stats.hpp"
#include "crypto/hmac.hpp"
#include "metrics/cache_families.hpp"
#include "route/state.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <string_view>

namespace stet::detail {
namespace {

struct memo_totals {
  std::uint64_t header_name_hits = 0, header_name_misses = 0, header_name_entries = 0;
  std::uint64_t cookie_hits = 0, cookie_misses = 0, cookie_evictions = 0, cookie_entries = 0, cookie_bypasses = 0;
  std::uint64_t macs = 0;
  std::uint64_t header_builds = 0, cookie_parses = 0, urlencoded_parses = 0, json_parses = 0;
  std::uint64_t accept_hits = 0, accept_misses = 0, accept_evictions = 0, accept_entries = 0, accept_bypasses = 0;
  std::uint64_t compressor_reuses = 0, compressor_creations = 0, compressors_idle = 0;
  std::uint64_t frame_reuses = 0, frame_allocations = 0, frames_idle = 0;
  std::array<std::uint64_t, 3> bytes_in{}, bytes_out{}, nanoseconds{};

  void add(const memo_stats& m) noexcept {
    header_name_hits += m.header_name_hits;
    header_name_misses += m.header_name_inserts + m.header_name_overflows;
    header_name_entries += m.header_name_entries;
    cookie_hits += m.cookie_cache_hits;
    cookie_misses += m.cookie_cache_misses;
    cookie_evictions += m.cookie_cache_evictions;
    cookie_entries += m.cookie_cache_entries;
    cookie_bypasses += m.cookie_cache_bypasses;
    macs += m.macs;
    header_builds += m.header_builds;
    cookie_parses += m.cookie_parses;
    urlencoded_parses += m.urlencoded_parses;
    json_parses += m.json_parses;
    accept_hits += m.accept_encoding_hits;
    accept_misses += m.accept_encoding_misses;
    accept_evictions += m.accept_encoding_evictions;
    accept_entries += m.accept_encoding_entries;
    accept_bypasses += m.accept_encoding_bypasses;
    compressor_reuses += m.compressor_reuses;
    compressor_creations += m.compressor_creations;
    compressors_idle += m.compressors_idle;
    frame_reuses += m.frame_reuses;
    frame_allocations += m.frame_allocations;
    frames_idle += m.frames_idle;
    for (std::size_t i = 0; i < bytes_in.size(); ++i) {
      bytes_in[i] += m.compressed_bytes_in[i];
      bytes_out[i] += m.compressed_bytes_out[i];
      nanoseconds[i] += m.compress_nanoseconds[i];
    }
  }
};

// A bounded per-thread cache keyed by a request field's bytes (cookies,
// Accept-Encoding): its four cache series and the lookups that bypassed it.
struct keyed_cache_totals {
  std::uint64_t hits, misses, evictions, entries, bypasses;
};

void add_keyed_cache_samples(std::string_view labels, const keyed_cache_totals& c, std::vector<metric_sample>& out) {
  add_sample(out, cache_hits, labels, c.hits);
  add_sample(out, cache_misses, labels, c.misses);
  add_sample(out, cache_evictions, labels, c.evictions);
  add_sample(out, cache_entries, labels, c.entries);
  out.push_back({"stet_cache_bypasses_total", "Lookups that skipped the cache (value over its size bound).", "counter",
                 labels, static_cast<double>(c.bypasses)});
}

void add_memo_samples(const memo_totals& t, std::vector<metric_sample>& out) {
  // Insert-only (views into it must never dangle): evictions stay 0, a full
  // cache shows as misses that fold names into the request arena instead.
  constexpr std::string_view names = R"(cache="header_names")";
  add_sample(out, cache_hits, names, t.header_name_hits);
  add_sample(out, cache_misses, names, t.header_name_misses);
  add_sample(out, cache_evictions, names, 0);
  add_sample(out, cache_entries, names, t.header_name_entries);

  add_keyed_cache_samples(R"(cache="cookies")",
                          {t.cookie_hits, t.cookie_misses, t.cookie_evictions, t.cookie_entries, t.cookie_bypasses},
                          out);

  constexpr metric_family memo_builds{"stet_memo_builds_total",
                                      "Request memos computed (each at most once per request).", "counter"};
  add_sample(out, memo_builds, R"(memo="headers")", t.header_builds);
  add_sample(out, memo_builds, R"(memo="cookies")", t.cookie_parses);
  add_sample(out, memo_builds, R"(memo="urlencoded")", t.urlencoded_parses);
  add_sample(out, memo_builds, R"(memo="json")", t.json_parses);
}

// Accept-Encoding values parsed once per thread (a bounded memo), and the
// compressor states each worker pools: a reuse is a hit, a creation a miss.
void add_compression_samples(const memo_totals& t, std::vector<metric_sample>& out) {
  add_keyed_cache_samples(R"(cache="accept_encoding")",
                          {t.accept_hits, t.accept_misses, t.accept_evictions, t.accept_entries, t.accept_bypasses},
                          out);
  constexpr std::string_view compressors = R"(cache="compressors")";
  add_sample(out, cache_hits, compressors, t.compressor_reuses);
  add_sample(out, cache_misses, compressors, t.compressor_creations);
  add_sample(out, cache_entries, compressors, t.compressors_idle);

  constexpr std::array<std::string_view, 3> in = {R"(coding="gzip",direction="in")", R"(coding="br",direction="in")",
                                                  R"(coding="zstd",direction="in")"};
  constexpr std::array<std::string_view, 3> coded = {
      R"(coding="gzip",direction="out")", R"(coding="br",direction="out")", R"(coding="zstd",direction="out")"};
  constexpr std::array<std::string_view, 3> coding = {R"(coding="gzip")", R"(coding="br")", R"(coding="zstd")"};
  constexpr metric_family bytes{"stet_compression_bytes_total",
                                "Response body bytes compressed (in) and produced (out), by coding.", "counter"};
  constexpr metric_family seconds{"stet_compression_seconds_total", "Time spent compressing response bodies.",
                                  "counter"};
  for (std::size_t i = 0; i < in.size(); ++i) add_sample(out, bytes, in[i], t.bytes_in[i]);
  for (std::size_t i = 0; i < coded.size(); ++i) add_sample(out, bytes, coded[i], t.bytes_out[i]);
  for (std::size_t i = 0; i < coding.size(); ++i) {
    out.push_back({seconds.name, seconds.help, seconds.type, coding[i], static_cast<double>(t.nanoseconds[i]) / 1e9});
  }
}

// A signer derives its keyed HMAC context once per secret (a miss) and every
// sign or verify duplicates it (a hit); entries are the contexts alive now.
// Derivations are process-wide: signers are not tied to a server.
void add_signer_samples(std::uint64_t macs, std::vector<metric_sample>& out) {
  const hmac_key_counts keys = hmac_key_stats();
  constexpr std::string_view signer = R"(cache="signer_keys")";
  add_sample(out, cache_hits, signer, macs);
  add_sample(out, cache_misses, signer, keys.derived);
  add_sample(out, cache_entries, signer, keys.held);
}

void add_route_samples(std::span<const worker_counters* const> workers, std::vector<metric_sample>& out) {
  std::uint64_t routes = 0;
  std::uint64_t swaps = 0;
  for (const router_state* s : distinct_router_states(workers)) {
    routes += s->published_routes.load(std::memory_order_relaxed);
    swaps += s->swaps.load(std::memory_order_relaxed);
  }
  out.push_back(
      {"stet_route_table_routes", "Routes in the published route table.", "gauge", "", static_cast<double>(routes)});
  out.push_back({"stet_route_table_swaps_total", "Route tables rebuilt and swapped in after the first.", "counter", "",
                 static_cast<double>(swaps)});
}

}  // namespace

void collect_library_caches(std::span<const worker_counters* const> workers, std::vector<metric_sample>& out) {
  memo_totals totals;
  for (const worker_counters* w : workers) {
    if (w->memo != nullptr) totals.add(*w->memo);
  }
  add_memo_samples(totals, out);
  add_compression_samples(totals, out);
  // Coroutine frames and suspended handlers' answer slots, pooled per worker.
  constexpr std::string_view frames = R"(cache="coroutine_frames")";
  add_sample(out, cache_hits, frames, totals.frame_reuses);
  add_sample(out, cache_misses, frames, totals.frame_allocations);
  add_sample(out, cache_entries, frames, totals.frames_idle);
  add_signer_samples(totals.macs, out);
  add_route_samples(workers, out);
}

std::vector<const router_state*> distinct_router_states(std::span<const worker_counters* const> workers) {
  std::vector<const router_state*> states;
  for (const worker_counters* w : workers) {
    if (w->routes != nullptr && std::find(states.begin(), states.end(), w->routes) == states.end()) {
      states.push_back(w->routes);
    }
  }
  return states;
}

}  // namespace stet::detail
