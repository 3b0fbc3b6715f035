#pragma once
// The compressed variants of a stored answer: made once per entry and coding,
// kept in the entry and charged to the cache's byte budget with it, gone with
// it. A hit never compresses: it sends a variant already made, or makes it
// (the first hit for that coding does, under the entry's lock, so concurrent
// askers wait for that one compression instead of each making their own).

#include <stet/compression.hpp>

#include "cache/cache_entry.hpp"
#include "cache/entry_table.hpp"

#include <atomic>
#include <cstdint>

namespace stet::detail {

struct variant_counters {
  std::atomic<std::uint64_t> made{0};  ///< variants made (kept or not)
  std::atomic<std::uint64_t> hits{0};  ///< answers sent from a variant already made
};

/// The `c` variant of `e` (held under `k`), made now if it has not been tried;
/// null when it cannot be had (no smaller than the body, over the budget,
/// the entry evicted meanwhile, the library failed).
const coded_variant* entry_variant(entry_table& table, const entry_table::key& k, const cache_entry& e,
                                   content_coding c, const compression_options& s, variant_counters& n);

}  // namespace stet::detail
