#pragma once
// The walk of a request path down a frozen table.

#include "route/table.hpp"

#include <cstdint>
#include <memory_resource>
#include <string_view>

namespace stet::detail {

struct match_outcome {
  enum class kind : std::uint8_t { route, not_found, not_allowed, options, redirect };
  kind what = kind::not_found;
  const route_entry* entry = nullptr;  // kind::route
  std::uint16_t allow = 0;             // kind::not_allowed, kind::options: method_bit()s the path answers to
  std::uint8_t captured = 0;           // kind::route: parameters written to `out`
  bool add_slash = false;              // kind::redirect: append '/' (otherwise drop the trailing one)
  std::uint32_t preflight_begin = 0;   // kind::options: the chain run of a covered path (trie_node)
  std::uint32_t preflight_size = 0;
};

/// Room for a route's parameters, left uninitialised: match_path() writes
/// each one before anything reads it.
struct capture_buffer {
  capture_buffer() noexcept {}  // NOLINT(modernize-use-equals-default): = default is deleted (string_view members)
  union {
    capture items[max_route_params];
  };
};

/// Whether decoded segment text `s` is a value of parameter class `k` (for
/// int/uint: in range, and converted into `number`). A catch-all takes anything.
bool convert_segment(segment_kind k, std::string_view s, std::uint64_t& number) noexcept;

/// A request's route, matched once from its head and kept with its exchange
/// until the request is dispatched: the body plan is read from it before any
/// 100 Continue, and dispatch runs the route without matching again. It points
/// into the table it was matched on, so dispatch uses it only while that table
/// is still the published one (same generation); after a swap (a route added
/// while the body arrived) the request is matched again on the new table.
struct route_match {
  match_outcome outcome;
  std::uint64_t generation = 0;  // of the table `outcome` points into; 0: none yet
  capture_buffer captures;
};

/// Matches `raw_path` (escapes intact; each segment is decoded on its own,
/// into `arena` only when it has an escape) for `m`. Writes the route's
/// parameters to `out[0, captured)`. Never allocates on the heap.
match_outcome match_path(const route_table& t, stet::method m, std::string_view raw_path,
                         std::pmr::memory_resource& arena, capture* out) noexcept;

}  // namespace stet::detail
