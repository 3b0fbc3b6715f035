#pragma once
// The frozen route table: a segment trie flattened into arrays. Built once per
// change of the routes, immutable afterwards, read by any number of threads.
//
// Layout: nodes[0] is the root ("/"). A node at depth d is reached by the first
// d segments of a path. Its literal edges are a run of `literals`, scanned when
// short and looked up through an open-addressed run of `literal_slots` when
// wide (an API root with a hundred resources), its parameter edges a run of `params` in
// precedence order (int, uint, alpha, alnum, any), then at most one catch-all
// child. `routes[method]` is the entry of a route that ends at the node.

#include <stet/method.hpp>
#include <stet/router.hpp>

#include <array>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace stet::detail {

struct router_state;
struct route_def;

inline constexpr std::uint32_t no_index = ~std::uint32_t{0};

constexpr std::uint16_t method_bit(stet::method m) noexcept {
  return static_cast<std::uint16_t>(1u << static_cast<unsigned>(m));
}

struct route_entry {
  const handler_box* handler;
  const route_def* def;
  std::string_view pattern;   // def->pattern, kept here so dispatch need not touch the def
  std::uint32_t arg_offset;   // the handler's arguments start at this capture
  std::uint32_t names_begin;  // parameter names: table.param_names[names_begin, +parameter count)
  std::uint32_t chain_begin;  // middleware: table.chain[chain_begin, +chain_size)
  std::uint32_t chain_size;
};

struct literal_edge {
  std::string_view text;  // decoded; points into a route_def
  std::uint32_t hash;     // segment_hash(text): most mismatches never reach memcmp
  std::uint32_t child;
};

/// FNV-1a over a decoded segment.
inline std::uint32_t segment_hash(std::string_view text) noexcept {
  std::uint32_t h = 2166136261u;
  for (const char c : text) h = (h ^ static_cast<unsigned char>(c)) * 16777619u;
  return h;
}

/// Nodes with more literal edges than this get a hashed lookup.
inline constexpr std::uint32_t linear_literals = 8;

struct param_edge {
  segment_kind kind;
  std::uint32_t child;
};

struct trie_node {
  std::uint32_t literal_begin = 0;
  std::uint32_t literal_count = 0;
  std::uint32_t slot_begin = 0;  // wide nodes: literal_slots[slot_begin, +slot_mask + 1) hold edge indices
  std::uint32_t slot_mask = 0;   // 0: scan the edges
  std::uint32_t param_begin = 0;
  std::uint32_t param_count = 0;
  std::uint32_t rest = no_index;  // catch-all child: a leaf that takes the remainder
  std::uint16_t methods = 0;      // method_bit() of every route ending here
  std::array<std::uint32_t, method_count> routes;
  // An automatic OPTIONS here runs chain[preflight_begin, +preflight_size):
  // the router's layers and the preflight layers of a route's scope (0: none).
  std::uint32_t preflight_begin = 0;
  std::uint32_t preflight_size = 0;
};

/// A path made of literal segments only ("/plaintext", "/api/health"), whole,
/// and the node it leads to: such a path is found by one hash probe instead of
/// a walk down the trie (literal edges win at every depth, so the walk would end
/// at the same node).
struct exact_path {
  std::string text;    // "/" + the decoded segments joined by '/'; none holds '/' or '%'
  std::uint32_t hash;  // exact_hash(text)
  std::uint32_t node;
};

/// A hash of a whole path from its length and its first and last eight bytes:
/// a few instructions whatever the length. Paths differing only in the middle
/// share a slot run and are told apart by comparison.
inline std::uint32_t exact_hash(std::string_view path) noexcept {
  std::uint64_t head = 0;
  std::uint64_t tail = 0;
  const std::size_t n = path.size() < 8 ? path.size() : 8;
  std::memcpy(&head, path.data(), n);
  std::memcpy(&tail, path.data() + path.size() - n, n);
  const std::uint64_t mixed = (head * 0x9e3779b97f4a7c15u) ^ (tail * 0xc2b2ae3d27d4eb4fu) ^ path.size();
  return static_cast<std::uint32_t>(mixed >> 32) ^ static_cast<std::uint32_t>(mixed);
}

struct route_table {
  /// Builds from the state's definitions. Caller holds the state's mutex.
  static std::unique_ptr<const route_table> build(const router_state& state, std::uint64_t generation);

  /// Which table this is: numbered from 1 as tables are published, never
  /// reused, so a match kept from the head (route_match) can tell whether the
  /// table it points into is still the published one.
  std::uint64_t generation = 0;

  std::vector<trie_node> nodes;
  std::vector<literal_edge> literals;
  std::vector<std::uint32_t> literal_slots;  // no_index marks an empty slot
  std::vector<param_edge> params;
  std::vector<route_entry> entries;
  std::vector<std::string_view> param_names;  // point into the route_defs
  std::vector<const middleware_layer*> chain;
  std::uint32_t router_chain_size = 0;  // the router's own layers: chain[0, router_chain_size)
  std::vector<std::pair<std::string_view, const route_def*>> names;  // sorted, for url_for
  std::size_t max_depth = 0;                                         // deepest pattern, in segments
  std::vector<exact_path> exact;           // of the nodes where a route ends, reached by literals only
  std::vector<std::uint32_t> exact_slots;  // open-addressed indices into `exact`; no_index marks an empty slot
  std::uint32_t exact_mask = 0;
  std::uint16_t all_methods = 0;
  router_options options;
  std::shared_ptr<const std::function<void(std::string_view)>> report;
};

}  // namespace stet::detail
