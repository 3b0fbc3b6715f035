// The response cache in /-/metrics: the stet_cache_* families every cache
// reports under (so its row on the status page needs nothing more), the
// counters only this cache has, and each counter again by route (in families
// of their own, so that summing a stet_cache_* family never counts twice).
#include <stet/response_cache.hpp>

#include "metrics/cache_families.hpp"

#include <deque>
#include <mutex>
#include <string>

namespace stet {
namespace {

constexpr std::string_view label = R"(cache="responses")";

void report_totals(const response_cache_stats& s, std::vector<metric_sample>& out) {
  const auto d = [](std::uint64_t v) { return static_cast<double>(v); };
  detail::add_sample(out, detail::cache_hits, label, s.hits);
  detail::add_sample(out, detail::cache_misses, label, s.misses);
  detail::add_sample(out, detail::cache_evictions, label, s.evictions);
  detail::add_sample(out, detail::cache_entries, label, s.entries);
  out.push_back({"stet_cache_bytes", "Bytes held by the cache now.", "gauge", label, d(s.bytes)});
  out.push_back({"stet_cache_bypasses_total", "Lookups skipped.", "counter", label, d(s.bypasses)});
  out.push_back({"stet_cache_stale_hits_total", "Hits answered from an entry past its time to live.", "counter", label,
                 d(s.stale_hits)});
  out.push_back({"stet_cache_refreshes_total", "Background runs of a handler to refresh a stale entry.", "counter",
                 label, d(s.refreshes)});
  out.push_back({"stet_cache_waits_total", "Requests that waited for another request's run of the same key.", "counter",
                 label, d(s.waits)});
  out.push_back(
      {"stet_cache_not_stored_total", "Answers the rules kept out of the cache.", "counter", label, d(s.not_stored)});
  out.push_back(
      {"stet_cache_invalidations_total", "Entries dropped by an invalidation.", "counter", label, d(s.invalidations)});
  constexpr std::string_view variants = R"(cache="response_variants")";
  detail::add_sample(out, detail::cache_hits, variants, s.variant_hits);
  detail::add_sample(out, detail::cache_misses, variants, s.variants_made);
}

// A Prometheus label value: backslash, quote and newline escaped.
std::string route_label(std::string_view name) {
  std::string l = R"(route=")";
  for (const char c : name) {
    if (c == '\\' || c == '"') l += '\\';
    l += c == '\n' ? std::string_view("\\n") : std::string_view(&c, 1);
  }
  l += '"';
  return l;
}

// The labels of the routes seen so far; samples view them, so they live as
// long as the collector. Readers may collect at the same time.
struct route_labels {
  std::mutex mutex;
  std::deque<std::string> text;
};

}  // namespace

void report_metrics(metrics& m, std::shared_ptr<const response_cache> cache) {
  auto labels = std::make_shared<route_labels>();
  m.add_collector([cache = std::move(cache), labels](std::vector<metric_sample>& out) {
    report_totals(cache->stats(), out);
    const std::vector<response_cache_route_stats> routes = cache->route_stats();
    const std::lock_guard lock(labels->mutex);
    while (labels->text.size() < routes.size()) labels->text.push_back(route_label(routes[labels->text.size()].name));
    for (std::size_t i = 0; i < routes.size(); ++i) {
      const response_cache_stats& c = routes[i].counters;
      const std::string_view l = labels->text[i];
      const auto add = [&](std::string_view name, std::string_view help, std::uint64_t v) {
        out.push_back({name, help, "counter", l, static_cast<double>(v)});
      };
      add("stet_response_cache_hits_total", "Response cache hits, by route.", c.hits);
      add("stet_response_cache_misses_total", "Response cache misses (handler runs), by route.", c.misses);
      add("stet_response_cache_bypasses_total", "Response cache lookups skipped, by route.", c.bypasses);
      add("stet_response_cache_stale_hits_total", "Response cache stale hits, by route.", c.stale_hits);
      add("stet_response_cache_refreshes_total", "Response cache background refreshes, by route.", c.refreshes);
      add("stet_response_cache_waits_total", "Response cache single-flight waits, by route.", c.waits);
    }
  });
}

}  // namespace stet
