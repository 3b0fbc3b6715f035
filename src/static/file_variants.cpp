// Compressed variants of cached static files: made once per file version and
// coding, kept inside the entry and counted against the cache's byte budget,
// gone with the entry (an edited file is a new entry, so it gets new ones).
#include "counters/counter_add.hpp"
#include "static/file_store.hpp"

#include "response/compress/compress.hpp"
#include "response/compress/variant.hpp"

namespace stet::detail {
namespace {

std::size_t slot_of(content_coding c) noexcept { return static_cast<std::size_t>(c) - 1; }
std::uint8_t bit_of(content_coding c) noexcept { return static_cast<std::uint8_t>(1U << slot_of(c)); }

}  // namespace

const file_variant* file_store::variant(std::string_view relative, const std::shared_ptr<const file_entry>& entry,
                                        content_coding c, cache_counters& counters) {
  const std::uint8_t bit = bit_of(c);
  if ((entry->variants_ready.load(std::memory_order_acquire) & bit) != 0) {
    shared_add(counters.variant_hits);
    return entry->variants[slot_of(c)].get();
  }
  std::unique_lock lock(entry->variant_mutex);
  if ((entry->variants_ready.load(std::memory_order_acquire) & bit) != 0) {
    shared_add(counters.variant_hits);
    return entry->variants[slot_of(c)].get();
  }
  const file_cache::key k = file_cache::make_key(relative);
  if ((entry->variants_tried & bit) != 0 || !entry->bytes || !cache.holds(k, entry.get())) return nullptr;
  entry->variants_tried |= bit;
  if (entry->bytes->size() <= inline_variant_bytes) {
    // Under the entry's lock: concurrent askers wait for this one compression.
    make_variant(k, *entry, c, counters);
    return entry->variants[slot_of(c)].get();
  }
  lock.unlock();
  const bool queued =
      hasher.post([this, path = std::string(relative), entry, c, &counters](const std::atomic<bool>& stop) {
        if (stop.load(std::memory_order_relaxed)) return;
        // Without the entry's lock: workers asking meanwhile must not wait for
        // this. The tried bit makes this job the slot's only writer.
        try {
          make_variant(file_cache::make_key(path), *entry, c, counters);
        } catch (...) {
          // Out of memory: the file is served as it is (the tried bit stays set).
        }
      });
  if (!queued) {
    lock.lock();
    entry->variants_tried &= static_cast<std::uint8_t>(~bit);  // the queue was full: a later request asks again
  }
  return nullptr;
}

// The only writer of the coding's slot (its tried bit is set); readers look at
// the slot only after seeing its ready bit. Publishes only what the budget took.
void file_store::make_variant(const file_cache::key& k, const file_entry& e, content_coding c,
                              cache_counters& counters) {
  shared_add(counters.variant_misses);
  auto coded = std::make_shared<std::string>();
  if (!compress_body(c, params_of(options_.compression), *e.bytes, *coded) || coded->size() >= e.bytes->size()) return;
  coded->shrink_to_fit();
  auto v = std::make_shared<file_variant>();
  if (!variant_etag(e.etag_view(), c, v->etag)) return;
  if (!cache.add_variant_charge(k, &e, coded->size() + v->etag.size())) return;
  v->bytes = std::move(coded);
  e.variants[slot_of(c)] = std::move(v);
  e.variants_ready.fetch_or(bit_of(c), std::memory_order_release);
}

}  // namespace stet::detail
