#include "cache/entry_variants.hpp"

#include "response/compress/compress.hpp"
#include "response/compress/variant.hpp"

namespace stet::detail {
namespace {

std::size_t slot_of(content_coding c) noexcept { return static_cast<std::size_t>(c) - 1; }
std::uint8_t bit_of(content_coding c) noexcept { return static_cast<std::uint8_t>(1U << slot_of(c)); }

std::shared_ptr<const coded_variant> make_variant(const cache_entry& e, content_coding c,
                                                  const compression_options& s) {
  auto coded = std::make_shared<std::string>();
  if (!compress_body(c, params_of(s), *e.body, *coded) || coded->size() >= e.body->size()) return nullptr;
  coded->shrink_to_fit();
  auto v = std::make_shared<coded_variant>();
  if (!variant_etag(e.etag, c, v->etag)) return nullptr;
  v->bytes = std::move(coded);
  return v;
}

}  // namespace

const coded_variant* entry_variant(entry_table& table, const entry_table::key& k, const cache_entry& e,
                                   content_coding c, const compression_options& s, variant_counters& n) {
  const std::uint8_t bit = bit_of(c);
  if ((e.variants_ready.load(std::memory_order_acquire) & bit) != 0) {
    n.hits.fetch_add(1, std::memory_order_relaxed);
    return e.variants[slot_of(c)].get();
  }
  const std::lock_guard lock(e.variant_mutex);
  if ((e.variants_ready.load(std::memory_order_acquire) & bit) != 0) {
    n.hits.fetch_add(1, std::memory_order_relaxed);
    return e.variants[slot_of(c)].get();
  }
  if ((e.variants_tried & bit) != 0) return nullptr;
  e.variants_tried |= bit;
  n.made.fetch_add(1, std::memory_order_relaxed);
  std::shared_ptr<const coded_variant> v = make_variant(e, c, s);
  if (!v || !table.charge_variant(k, &e, v->bytes->size() + v->etag.size())) return nullptr;
  e.variants[slot_of(c)] = std::move(v);
  e.variants_ready.fetch_or(bit, std::memory_order_release);
  return e.variants[slot_of(c)].get();
}

}  // namespace stet::detail
