#include <stet/static_files.hpp>

#include "metrics/cache_families.hpp"

namespace stet {

void report_metrics(metrics& m, std::shared_ptr<const static_files> files) {
  m.add_collector([files = std::move(files)](std::vector<metric_sample>& out) {
    const static_stats s = files->stats();
    const auto d = [](std::uint64_t v) { return static_cast<double>(v); };
    constexpr std::string_view label = R"(cache="static")";
    detail::add_sample(out, detail::cache_hits, label, s.hits);
    detail::add_sample(out, detail::cache_misses, label, s.misses);
    detail::add_sample(out, detail::cache_evictions, label, s.evictions);
    detail::add_sample(out, detail::cache_entries, label, s.entries);
    out.push_back({"stet_cache_bytes", "Bytes held by the cache now.", "gauge", label, d(s.bytes_cached)});
    // Content hashes live in the static cache's entries: a hit is a `?_hash=`
    // check or static_url() that found the digest already computed for the
    // file's current identity; a miss computes SHA-256 once.
    constexpr std::string_view hashes = R"(cache="content_hashes")";
    detail::add_sample(out, detail::cache_hits, hashes, s.hash_hits);
    detail::add_sample(out, detail::cache_misses, hashes, s.hashes);
    // Compressed variants live in the entries too (and in stet_cache_bytes{cache="static"}):
    // a hit is an answer sent from a variant already made, a miss makes one.
    constexpr std::string_view variants = R"(cache="static_variants")";
    detail::add_sample(out, detail::cache_hits, variants, s.variant_hits);
    detail::add_sample(out, detail::cache_misses, variants, s.variant_misses);
    out.push_back({"stet_cache_bytes", "Bytes held by the cache now.", "gauge", variants, d(s.variant_bytes)});
    out.push_back(
        {"stet_static_revalidations_total", "Cache hits checked with a stat.", "counter", "", d(s.revalidations)});
    out.push_back({"stet_static_not_modified_total", "304 answers.", "counter", "", d(s.not_modified)});
    out.push_back({"stet_static_partial_total", "206 answers.", "counter", "", d(s.partial)});
    out.push_back({"stet_static_refused_total", "Paths refused.", "counter", "", d(s.refused)});
    out.push_back({"stet_static_background_refused_total",
                   "Hashes and compressed variants not queued: the background queue was full.", "counter", "",
                   d(s.background_refused)});
  });
}

}  // namespace stet
