#pragma once
// What every copy of a router (and its groups) shares: the route definitions as
// added, and the frozen table built from them.

#include <stet/router.hpp>

#include "route/pattern.hpp"
#include "route/pending_response.hpp"

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace stet::detail {

struct route_table;

/// The middleware of one scope (a router, a group or a mounted router); the
/// chain of a route is its scope's layers after all its parents'.
struct layer_node {
  std::shared_ptr<layer_node> parent;                           // null for a router's own layer
  std::vector<std::shared_ptr<const middleware_layer>> layers;  // guarded by router_state::mutex
};

/// One route as added. Never removed or changed, so frozen tables can point into it.
struct route_def {
  stet::method method;
  std::string pattern;  // as written, prefixes included
  compiled_pattern compiled;
  std::size_t arg_offset = 0;  // parameters of group/mount prefixes: not handler arguments
  std::shared_ptr<const handler_box> handler;
  std::shared_ptr<layer_node> layer;
  std::string name;
  bool compress = true;                       // route_options::compress
  std::uint64_t max_body_bytes = 0;           // route_options::max_body_bytes (0: the server's)
  bool stream_body = false;                   // route_options::stream_body
  std::shared_ptr<const cached_route> cache;  // route_options::cache
  std::uint32_t id = 0;                       // its index in router_state::defs: the key of per-route metrics
};

struct router_state {
  explicit router_state(router_options o);
  ~router_state();
  router_state(const router_state&) = delete;
  router_state& operator=(const router_state&) = delete;

  /// The table to dispatch on; builds it on first use. Call inside an epoch::read_section.
  const route_table& acquire();

  /// Adds checked definitions, all or nothing. Caller holds `mutex`. @throws route_error.
  void commit_locked(std::vector<std::unique_ptr<route_def>> added);
  /// After a change: if a table was already published, build and swap in a new one.
  void changed_locked();

  mutable std::mutex mutex;  // writers only; dispatch never takes it (the metrics reader does, to name routes)
  const router_options options;
  const std::shared_ptr<layer_node> root = std::make_shared<layer_node>();
  std::vector<std::unique_ptr<route_def>> defs;
  std::set<std::string, std::less<>> keys;
  std::set<std::string, std::less<>> names;
  std::shared_ptr<const error_reporter> report;

  // For the metrics, read without the mutex: routes in the published table,
  // and tables swapped in after the first (each a rebuild for a late add).
  std::atomic<std::uint64_t> published_routes{0};
  std::atomic<std::uint64_t> swaps{0};

 private:
  void publish_locked();

  struct retired_table {
    std::unique_ptr<const route_table> table;
    std::uint64_t tag;
  };
  std::atomic<const route_table*> table_{nullptr};
  std::vector<retired_table> retired_;
  std::uint64_t generations_ = 0;  // tables built so far (route_table::generation)
};

}  // namespace stet::detail
