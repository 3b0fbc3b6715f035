#pragma once
/// @file
/// stet::response_cache: answers of dynamic routes derived once and reused
/// until their time is up or the application says what changed (tags, routes).
/// A route opts in with a cache_policy (response_cache::route()); see
/// docs/caches.md for the key, the invalidation rules, the bound and the metrics.

#include <stet/compression.hpp>
#include <stet/metrics.hpp>
#include <stet/request.hpp>
#include <stet/response.hpp>
#include <stet/routing.hpp>
#include <stet/status.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace stet {

namespace detail {
class response_store;
}  // namespace detail

/// What one route's answers are cached for, and under which key. A plain
/// aggregate, copied by response_cache::route().
struct cache_policy {
  /// How long an answer is fresh: served without running the handler.
  std::chrono::milliseconds ttl{1000};
  /// After `ttl`, for this long the stale answer is still served while one
  /// background run of the handler refreshes it (once per key).
  std::chrono::milliseconds stale_while_revalidate{0};
  /// After `ttl`, for this long the stale answer is served instead of a failed
  /// run of the handler (an exception or a 5xx), in the foreground or the background.
  std::chrono::milliseconds stale_if_error{0};
  /// The query arguments that are part of the key, by name (their raw values,
  /// in this order). Empty: the whole query string as sent is part of the key.
  std::vector<std::string> query_args{};
  /// True: the query string is not part of the key at all (`query_args` ignored).
  bool ignore_query = false;
  /// Request headers that are part of the key (their first line, as sent);
  /// named in the answer's `Vary`. A request with `Authorization` or `Cookie`
  /// bypasses the cache unless that header is listed here.
  std::vector<std::string> vary{};
  /// Tags of an answer, for response_cache::invalidate_tag(): called once per
  /// stored answer with the request and the handler's response; appends tags
  /// (e.g. "user:42") to the vector. Null: no tags.
  std::function<void(const request&, const response&, std::vector<std::string>&)> tags{};
  /// Bodies larger than this are not stored (a streamed one is abandoned when
  /// it grows past it, never stored truncated).
  std::size_t max_entry_bytes = 1024 * 1024;
  /// The statuses that are stored; any other answer passes through.
  std::vector<stet::status> statuses{stet::status::ok, stet::status::not_found};
  /// The name of the route in metrics, the status page and invalidate_route();
  /// empty: the name given to response_cache::route().
  std::string name{};
};

/// Settings of one response cache, read once at construction.
struct response_cache_options {
  /// Bytes of stored answers (bodies, headers and compressed variants) the
  /// cache may hold; least recently used entries are evicted past it.
  std::uint64_t budget_bytes = 64 * 1024 * 1024;
  /// Requests that may wait for one key's handler run (single flight); more
  /// run the handler themselves (counted as bypasses).
  std::size_t max_waiters = 4096;
  /// Background refreshes waiting for the refresh thread, at most; a stale hit
  /// that finds the queue full tries again on a later request.
  std::size_t max_queued_refreshes = 64;
  /// The compressed variants of an entry, made once per entry and coding
  /// (`enabled` false: none; answers then go out as stored).
  compression_options compression{};
  /// The cache's name on a server's pubsub bus: an invalidation made here
  /// reaches the caches of this name on every instance sharing the bus.
  std::string name = "responses";
};

/// Counters of a response cache (each summed over its shards; any thread).
struct response_cache_stats {
  std::uint64_t hits = 0;           ///< answered from an entry without running the handler (stale ones too)
  std::uint64_t misses = 0;         ///< the handler ran for a key (the single-flight leader)
  std::uint64_t bypasses = 0;       ///< not looked up: Authorization/Cookie, too many waiters, not GET/HEAD
  std::uint64_t stale_hits = 0;     ///< hits from an entry past its ttl (revalidating or after an error)
  std::uint64_t refreshes = 0;      ///< background runs of the handler
  std::uint64_t waits = 0;          ///< requests that waited for another's run of the handler
  std::uint64_t not_stored = 0;     ///< handler answers the rules kept out (cookies, private, status, size)
  std::uint64_t evictions = 0;      ///< entries dropped for the byte budget
  std::uint64_t invalidations = 0;  ///< entries dropped by invalidate_*()
  std::uint64_t variants_made = 0;  ///< compressed variants made (once per entry and coding)
  std::uint64_t variant_hits = 0;   ///< answers sent from a variant already made
  std::uint64_t entries = 0;        ///< held now
  std::uint64_t bytes = 0;          ///< charged now (variants included)
};

/// The same counters for one route (by policy name).
struct response_cache_route_stats {
  std::string name;               ///< cache_policy::name
  response_cache_stats counters;  ///< hits, misses, bypasses, stale_hits, refreshes, waits (the others are 0)
};

/// A cache of handler answers shared by every worker; thread-safe.
///
/// Keyed on the route, the path, the query (cache_policy::query_args) and the
/// listed request headers; GET and HEAD share entries. A hit builds the answer
/// from the stored bytes (shared, never copied) with `Age`, a strong `ETag`
/// computed once when the answer was stored, 304 for a matching
/// `If-None-Match`, 206 for a single `Range`, and the compressed variant the
/// client accepts, made once per entry. A hit allocates nothing and runs no
/// handler; the route's handler-time histogram counts handler runs only.
///
/// Asynchronous and coroutine handlers' answers pass through uncached.
class response_cache : public std::enable_shared_from_this<response_cache> {
 public:
  /// An empty cache with `options`; the refresh thread starts on the first stale hit.
  explicit response_cache(response_cache_options options = {});
  /// Routes given options by route() keep the entries alive while they exist.
  /// A background refresh lives no longer than its route: destroying the
  /// route (its router) turns away its queued refreshes and waits for a
  /// running one, so a handler never runs after its router is gone.
  ~response_cache();
  response_cache(const response_cache&) = delete;
  response_cache& operator=(const response_cache&) = delete;

  /// route_options for a route whose answers this cache keeps under `policy`
  /// (`name` when policy.name is empty). The options hold this cache.
  /// @note call on a cache owned by a std::shared_ptr.
  route_options route(std::string_view name, cache_policy policy, route_options base = {});

  /// Drops every entry tagged `tag`; any thread. A handler run that began
  /// before this call is answered but not stored. When a started server's
  /// routes use this cache, the invalidation also travels on the server's
  /// pubsub bus (server_options::pubsub) to the caches of the same
  /// response_cache_options::name on every instance, which apply it once with
  /// the same rule when it arrives; here it is applied before this returns.
  void invalidate_tag(std::string_view tag);
  /// Drops every entry of the route named `name`; any thread; as invalidate_tag().
  void invalidate_route(std::string_view name);
  /// Drops every entry; any thread; as invalidate_tag().
  void invalidate_all();

  /// The counters now.
  response_cache_stats stats() const;
  /// The counters of each route, in the order the routes were made.
  std::vector<response_cache_route_stats> route_stats() const;

 private:
  std::shared_ptr<detail::response_store> store_;
};

/// Reports `cache` under the `stet_cache_*{cache="responses"}` families of `m`
/// (and so on the status page), with stale hits, background refreshes and
/// single-flight waits in total and by route.
void report_metrics(metrics& m, std::shared_ptr<const response_cache> cache);

}  // namespace stet
