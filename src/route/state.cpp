#include "route/state.hpp"

#include "route/epoch.hpp"
#include "route/table.hpp"

#include <algorithm>

namespace stet::detail {

router_state::router_state(router_options o) : options(o) {}

// The last router copy is going away, so no dispatch can be running: every
// table, retired or current, is unreachable.
router_state::~router_state() { delete table_.load(); }

const route_table& router_state::acquire() {
  if (const route_table* t = table_.load(std::memory_order_seq_cst)) return *t;
  const std::lock_guard lock(mutex);
  if (table_.load() == nullptr) publish_locked();
  return *table_.load();
}

void router_state::commit_locked(std::vector<std::unique_ptr<route_def>> added) {
  // Check everything first so that a refused batch leaves no trace.
  std::set<std::string_view, std::less<>> batch_keys;
  std::set<std::string_view, std::less<>> batch_names;
  for (const auto& def : added) {
    const std::string& key = def->compiled.key;
    if (keys.contains(key) || !batch_keys.insert(key).second) {
      refuse(def->method, def->pattern, "an equivalent route (same method, literals and classes) already exists");
    }
    if (!def->name.empty() && (names.contains(def->name) || !batch_names.insert(def->name).second)) {
      refuse(def->method, def->pattern, "the route name \"" + def->name + "\" is already taken");
    }
  }
  for (auto& def : added) {
    keys.insert(def->compiled.key);
    if (!def->name.empty()) names.insert(def->name);
    def->id = static_cast<std::uint32_t>(defs.size());
    defs.push_back(std::move(def));
  }
  changed_locked();
}

void router_state::changed_locked() {
  if (table_.load() != nullptr) publish_locked();
}

// Build aside, swap in one store, then free whatever retired table no reader
// can still hold. Tables still pinned wait for a later publish or the end.
void router_state::publish_locked() {
  std::unique_ptr<const route_table> fresh = route_table::build(*this, ++generations_);
  const route_table* old = table_.exchange(fresh.release(), std::memory_order_seq_cst);
  published_routes.store(defs.size(), std::memory_order_relaxed);
  if (old != nullptr) {
    swaps.fetch_add(1, std::memory_order_relaxed);
    retired_.push_back({std::unique_ptr<const route_table>(old), epoch::advance()});
  }
  std::erase_if(retired_, [](const retired_table& r) { return epoch::quiescent(r.tag); });
}

}  // namespace stet::detail
