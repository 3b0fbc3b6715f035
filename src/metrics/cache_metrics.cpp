#include "metrics/cache_metrics.hpp"

#include "crypto/hmac.hpp"
#include "metrics/cache_families.hpp"
#include "request/memo_stats.hpp"
#include "route/state.hpp"

#include <algorithm>
#include <cstdint>
#include <string_view>

namespace stet::detail {
namespace {

struct memo_totals {
  std::uint64_t header_name_hits = 0, header_name_misses = 0, header_name_entries = 0;
  std::uint64_t cookie_hits = 0, cookie_misses = 0, cookie_evictions = 0, cookie_entries = 0, cookie_bypasses = 0;
  std::uint64_t macs = 0;
  std::uint64_t header_builds = 0, cookie_parses = 0, urlencoded_parses = 0, json_parses = 0;

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
  }
};

void add_memo_samples(const memo_totals& t, std::vector<metric_sample>& out) {
  // Insert-only (views into it must never dangle): evictions stay 0, a full
  // cache shows as misses that fold names into the request arena instead.
  constexpr std::string_view names = R"(cache="header_names")";
  add_sample(out, cache_hits, names, t.header_name_hits);
  add_sample(out, cache_misses, names, t.header_name_misses);
  add_sample(out, cache_evictions, names, 0);
  add_sample(out, cache_entries, names, t.header_name_entries);

  constexpr std::string_view cookies = R"(cache="cookies")";
  add_sample(out, cache_hits, cookies, t.cookie_hits);
  add_sample(out, cache_misses, cookies, t.cookie_misses);
  add_sample(out, cache_evictions, cookies, t.cookie_evictions);
  add_sample(out, cache_entries, cookies, t.cookie_entries);
  out.push_back({"stet_cache_bypasses_total", "Lookups that skipped the cache (value over its size bound).", "counter",
                 cookies, static_cast<double>(t.cookie_bypasses)});

  constexpr metric_family memo_builds{"stet_memo_builds_total",
                                      "Request memos computed (each at most once per request).", "counter"};
  add_sample(out, memo_builds, R"(memo="headers")", t.header_builds);
  add_sample(out, memo_builds, R"(memo="cookies")", t.cookie_parses);
  add_sample(out, memo_builds, R"(memo="urlencoded")", t.urlencoded_parses);
  add_sample(out, memo_builds, R"(memo="json")", t.json_parses);
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
