// Per-route request counters and handler-time histograms: recorded by each
// worker into its own route_counter_table, merged here when metrics are read.
#include <stet/metrics.hpp>

#include "metrics/cache_metrics.hpp"
#include "metrics/exposition.hpp"
#include "metrics/route_metrics.hpp"
#include "metrics/worker_counters.hpp"
#include "route/state.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <mutex>
#include <string>

namespace stet::detail {

route_counter_table::~route_counter_table() {
  for (auto& chunk : chunks_) delete[] chunk.load(std::memory_order_relaxed);
}

route_counters* route_counter_table::at(std::uint32_t id) {
  if (id >= max_routes) return nullptr;
  std::atomic<route_counters*>& slot = chunks_[id / chunk_size];
  route_counters* chunk = slot.load(std::memory_order_relaxed);  // only this thread stores
  if (chunk == nullptr) {
    chunk = new route_counters[chunk_size];
    slot.store(chunk, std::memory_order_release);  // readers see it zeroed
  }
  return chunk + id % chunk_size;
}

const route_counters* route_counter_table::find(std::uint32_t id) const noexcept {
  if (id >= max_routes) return nullptr;
  const route_counters* chunk = chunks_[id / chunk_size].load(std::memory_order_acquire);
  return chunk == nullptr ? nullptr : chunk + id % chunk_size;
}

void collect_routes(std::span<const worker_counters* const> workers, std::vector<route_totals>& out) {
  // Route names come from the router each worker dispatches on; the router's
  // mutex (writers only) is taken here, never on the request path.
  for (const router_state* state : distinct_router_states(workers)) {
    const std::size_t first = out.size();
    std::size_t count = 0;
    {
      const std::lock_guard lock(state->mutex);
      count = std::min(state->defs.size(), route_counter_table::max_routes);
      out.resize(first + count);
      for (std::size_t id = 0; id < count; ++id) {
        out[first + id].method = state->defs[id]->method;
        out[first + id].pattern = state->defs[id]->pattern;
      }
    }
    for (const worker_counters* w : workers) {
      if (w->routes != state) continue;
      for (std::size_t id = 0; id < count; ++id) {
        const route_counters* c = w->per_route.find(static_cast<std::uint32_t>(id));
        if (c == nullptr) continue;
        route_totals& r = out[first + id];
        for (std::size_t k = 0; k < r.by_class.size(); ++k)
          r.by_class[k] += c->by_class[k].load(std::memory_order_relaxed);
        r.handler.add(c->handler.read());
      }
    }
  }
}

void append_route_metrics(const std::vector<route_totals>& routes, std::string& out) {
  auto it = std::back_inserter(out);
  std::string label;
  const auto name = [&label](const route_totals& r) -> const std::string& {
    label = "route=\"";
    label += to_string(r.method);
    label += ' ';
    append_label_value(label, r.pattern);
    label += '"';
    return label;
  };
  append_family(out, "stet_route_requests_total", "Requests a route answered, by status class.", "counter");
  for (const route_totals& r : routes) {
    if (!r.answered()) continue;
    for (std::size_t k = 0; k < r.by_class.size(); ++k) {
      if (r.by_class[k] != 0)
        fmt::format_to(it, "stet_route_requests_total{{{},code=\"{}xx\"}} {}\n", name(r), k + 1, r.by_class[k]);
    }
  }
  append_family(out, "stet_route_handler_seconds", "Time from routing to the handler's answer, per route.",
                "histogram");
  for (const route_totals& r : routes) {
    if (r.answered()) append_histogram(out, "stet_route_handler_seconds", name(r), r.handler);
  }
}

}  // namespace stet::detail
