#include "route/table.hpp"

#include "route/state.hpp"

#include <algorithm>
#include <map>
#include <unordered_map>
#include <utility>

namespace stet::detail {
namespace {

// Parameter edges by class, in the order dispatch tries them.
constexpr std::array<segment_kind, 5> param_order = {segment_kind::int64, segment_kind::uint64, segment_kind::alpha,
                                                     segment_kind::alnum, segment_kind::text};

constexpr std::size_t param_slot(segment_kind k) noexcept {
  return static_cast<std::size_t>(std::find(param_order.begin(), param_order.end(), k) - param_order.begin());
}

// The pointer-based trie the routes are inserted into before it is flattened.
struct build_node {
  build_node() { routes.fill(no_index); }
  std::map<std::string_view, std::unique_ptr<build_node>> literals;
  std::array<std::unique_ptr<build_node>, param_order.size()> params;
  std::unique_ptr<build_node> rest;
  std::array<std::uint32_t, method_count> routes;
  std::pair<std::uint32_t, std::uint32_t> preflight{0, 0};  // the first covered route's run wins
};

build_node& child(std::unique_ptr<build_node>& slot) {
  if (!slot) slot = std::make_unique<build_node>();
  return *slot;
}

void insert(build_node& root, const route_def& def, std::uint32_t entry,
            std::pair<std::uint32_t, std::uint32_t> preflight) {
  build_node* node = &root;
  for (const compiled_segment& seg : def.compiled.segments) {
    if (seg.kind == segment_kind::literal) {
      node = &child(node->literals[seg.text]);
    } else if (seg.kind == segment_kind::rest) {
      node = &child(node->rest);
    } else {
      node = &child(node->params[param_slot(seg.kind)]);
    }
  }
  // add() refused ambiguous duplicates by key, so a slot is never taken twice.
  node->routes[static_cast<std::size_t>(def.method)] = entry;
  if (node->preflight.second == 0) node->preflight = preflight;
}

// At most half full, so that a probe for an absent segment stops early.
void add_slots(trie_node& node, route_table& t) {
  std::uint32_t size = 1;
  while (size < node.literal_count * 2) size *= 2;
  node.slot_begin = static_cast<std::uint32_t>(t.literal_slots.size());
  node.slot_mask = size - 1;
  t.literal_slots.resize(t.literal_slots.size() + size, no_index);
  for (std::uint32_t e = node.literal_begin; e < node.literal_begin + node.literal_count; ++e) {
    std::uint32_t slot = t.literals[e].hash & node.slot_mask;
    while (t.literal_slots[node.slot_begin + slot] != no_index) slot = (slot + 1) & node.slot_mask;
    t.literal_slots[node.slot_begin + slot] = e;
  }
}

// Depth-first, reserving each node's edge runs before visiting its children so
// that every run is contiguous.
std::uint32_t flatten(const build_node& b, route_table& t) {
  const auto index = static_cast<std::uint32_t>(t.nodes.size());
  t.nodes.emplace_back();
  trie_node node;
  node.routes = b.routes;
  node.preflight_begin = b.preflight.first;
  node.preflight_size = b.preflight.second;
  for (std::size_t m = 0; m < method_count; ++m) {
    if (b.routes[m] != no_index) node.methods |= static_cast<std::uint16_t>(1u << m);
  }
  node.literal_begin = static_cast<std::uint32_t>(t.literals.size());
  node.literal_count = static_cast<std::uint32_t>(b.literals.size());
  t.literals.resize(t.literals.size() + b.literals.size());
  node.param_begin = static_cast<std::uint32_t>(t.params.size());
  for (std::size_t i = 0; i < param_order.size(); ++i) node.param_count += b.params[i] ? 1 : 0;
  t.params.resize(t.params.size() + node.param_count);

  std::uint32_t edge = node.literal_begin;
  for (const auto& [text, c] : b.literals) {
    const std::uint32_t child_index = flatten(*c, t);
    t.literals[edge++] = literal_edge{text, segment_hash(text), child_index};
  }
  if (node.literal_count > linear_literals) add_slots(node, t);
  edge = node.param_begin;
  for (std::size_t i = 0; i < param_order.size(); ++i) {
    if (!b.params[i]) continue;
    const std::uint32_t child_index = flatten(*b.params[i], t);
    t.params[edge++] = param_edge{param_order[i], child_index};
  }
  if (b.rest) node.rest = flatten(*b.rest, t);
  t.nodes[index] = node;
  return index;
}

// A literal that a raw path without escapes spells the same way, as one segment.
bool plain_literal(std::string_view text) noexcept {
  return !text.empty() && text.find_first_of("/%") == std::string_view::npos;
}

// Every node where a route ends and that literal edges alone lead to, by the
// path that spells them.
void collect_exact(route_table& t, std::uint32_t index, std::string& path) {
  const trie_node& n = t.nodes[index];
  if (n.methods != 0) {
    t.exact.push_back(exact_path{path.empty() ? std::string("/") : path, 0, index});
    t.exact.back().hash = exact_hash(t.exact.back().text);
  }
  for (std::uint32_t e = n.literal_begin; e < n.literal_begin + n.literal_count; ++e) {
    const std::string_view text = t.literals[e].text;
    if (!plain_literal(text)) continue;
    const std::size_t size = path.size();
    path.append("/").append(text);
    collect_exact(t, t.literals[e].child, path);
    path.resize(size);
  }
}

// At most half full, as the wide nodes' slots are.
void index_exact(route_table& t) {
  std::string path;
  collect_exact(t, 0, path);
  if (t.exact.empty()) return;
  std::uint32_t size = 1;
  while (size < t.exact.size() * 2) size *= 2;
  t.exact_mask = size - 1;
  t.exact_slots.assign(size, no_index);
  for (std::uint32_t e = 0; e < t.exact.size(); ++e) {
    std::uint32_t slot = t.exact[e].hash & t.exact_mask;
    while (t.exact_slots[slot] != no_index) slot = (slot + 1) & t.exact_mask;
    t.exact_slots[slot] = e;
  }
}

// Flattens each distinct scope's layers (outermost first) once; routes of the
// same scope share the run.
class chain_builder {
 public:
  chain_builder(route_table& t, const layer_node& root) : t_(t) {
    for (const auto& layer : root.layers) t_.chain.push_back(layer.get());
    t_.router_chain_size = static_cast<std::uint32_t>(t_.chain.size());
    runs_[&root] = {0, t_.router_chain_size};
  }

  std::pair<std::uint32_t, std::uint32_t> run_for(const layer_node* layer) {
    if (const auto it = runs_.find(layer); it != runs_.end()) return it->second;
    std::vector<const layer_node*> path;
    for (const layer_node* n = layer; n != nullptr; n = n->parent.get()) path.push_back(n);
    const auto begin = static_cast<std::uint32_t>(t_.chain.size());
    std::reverse(path.begin(), path.end());  // outermost layer first
    for (const layer_node* n : path) {
      for (const auto& l : n->layers) t_.chain.push_back(l.get());
    }
    const std::pair<std::uint32_t, std::uint32_t> run{begin, static_cast<std::uint32_t>(t_.chain.size()) - begin};
    runs_[layer] = run;
    return run;
  }

  // What wraps the automatic OPTIONS on a path of this scope's routes: the
  // router's layers and the scope's preflight layers, no others (a preflight
  // carries no credentials, so an authentication layer must never see it).
  // {0, 0} when no preflight layer lies below the router's own.
  std::pair<std::uint32_t, std::uint32_t> preflight_run_for(const layer_node* layer) {
    if (const auto it = preflight_runs_.find(layer); it != preflight_runs_.end()) return it->second;
    std::vector<const middleware_layer*> covering;
    for (const layer_node* n = layer; n != nullptr && n->parent != nullptr; n = n->parent.get()) {
      for (std::size_t i = n->layers.size(); i-- > 0;) {  // innermost first
        if (n->layers[i]->preflight) covering.push_back(n->layers[i].get());
      }
    }
    std::pair<std::uint32_t, std::uint32_t> run{0, 0};
    if (!covering.empty()) {
      covering.insert(covering.end(), t_.chain.rend() - t_.router_chain_size, t_.chain.rend());
      run = {static_cast<std::uint32_t>(t_.chain.size()), static_cast<std::uint32_t>(covering.size())};
      t_.chain.insert(t_.chain.end(), covering.rbegin(), covering.rend());
    }
    preflight_runs_[layer] = run;
    return run;
  }

 private:
  route_table& t_;
  std::unordered_map<const layer_node*, std::pair<std::uint32_t, std::uint32_t>> runs_;
  std::unordered_map<const layer_node*, std::pair<std::uint32_t, std::uint32_t>> preflight_runs_;
};

}  // namespace

std::unique_ptr<const route_table> route_table::build(const router_state& state, std::uint64_t generation) {
  auto t = std::make_unique<route_table>();
  t->generation = generation;
  t->options = state.options;
  t->report = state.report;
  chain_builder chains(*t, *state.root);
  build_node root;
  t->entries.reserve(state.defs.size());
  for (const auto& def : state.defs) {
    const auto [begin, size] = chains.run_for(def->layer.get());
    const auto entry = static_cast<std::uint32_t>(t->entries.size());
    const auto names_begin = static_cast<std::uint32_t>(t->param_names.size());
    for (const compiled_segment& seg : def->compiled.segments) {
      if (seg.kind != segment_kind::literal) t->param_names.push_back(seg.text);
    }
    t->entries.push_back(route_entry{def->handler.get(), def.get(), def->pattern,
                                     static_cast<std::uint32_t>(def->arg_offset), names_begin, begin, size});
    insert(root, *def, entry, chains.preflight_run_for(def->layer.get()));
    t->max_depth = std::max(t->max_depth, def->compiled.segments.size());
    t->all_methods |= method_bit(def->method);
    if (!def->name.empty()) t->names.emplace_back(def->name, def.get());
  }
  std::sort(t->names.begin(), t->names.end());
  flatten(root, *t);
  index_exact(*t);
  return t;
}

}  // namespace stet::detail
