#include "cache/cached_route.hpp"

#include "cache/cache_flow.hpp"
#include "cache/cache_key.hpp"
#include "cache/cache_waiter.hpp"
#include "cache/entry_variants.hpp"
#include "cache/store_rules.hpp"
#include "response/response_access.hpp"

#include <exception>
#include <utility>

namespace stet::detail {

cached_route::cached_route(std::shared_ptr<response_store> store, cache_policy policy)
    : store_(std::move(store)), policy_(std::move(policy)) {
  index_ = store_->add_route(policy_.name);
  counters_ = &store_->counters(index_);
}

response entry_answer(const cached_route& route, const entry_table::key& k, const cache_entry& e, const hit_request& q,
                      bool cached) {
  response_store& store = route.store();
  const compression_options& s = store.options.compression;
  const content_coding c = choose_coding(e, q, s);
  const coded_variant* v =
      c == content_coding::identity ? nullptr : entry_variant(store.table, k, e, c, s, store.variants);
  return answer_from_entry(e, q, v, v != nullptr ? coding_name(c) : std::string_view(), cache_clock::now(), cached);
}

namespace {

// The leader's run: whatever way it ends, its flight ends with it, and the
// waiters are answered from what was stored or sent home to run their own.
class leader_run {
 public:
  leader_run(const cached_route& route, const entry_table::key& k, std::shared_ptr<flight> run) noexcept
      : route_(route), key_(k), run_(std::move(run)) {}
  leader_run(const leader_run&) = delete;
  leader_run& operator=(const leader_run&) = delete;
  ~leader_run() {
    if (run_) finish(nullptr, false);
  }
  std::uint64_t epoch() const noexcept { return run_->epoch; }

  /// Ends the run with `e` (stored when `store` and the rules of the table allow).
  void finish(const std::shared_ptr<const cache_entry>& e, bool store) noexcept {
    std::vector<std::shared_ptr<cache_waiter>> waiters;
    try {
      route_.store().table.finish(key_, *run_, store ? e : nullptr, waiters);
    } catch (...) {
      // Out of memory inserting: the answer still goes out, unstored.
    }
    run_.reset();
    for (const std::shared_ptr<cache_waiter>& w : waiters) answer_waiter(w, e.get());
  }

 private:
  void answer_waiter(const std::shared_ptr<cache_waiter>& w, const cache_entry* e) noexcept {
    if (e == nullptr) {
      send_home(w);
      return;
    }
    // Released before the answer goes: once it has, the waiter's thread may
    // return and take its executor with it (router::handle()'s loop lives on
    // that thread's stack). A worker's loop does not stop meanwhile: the
    // waiting connection is on its handler deadline.
    w->home->release();
    try {
      w->slot->complete(entry_answer(route_, key_, *e, w->facts, true));
    } catch (...) {
      w->slot->fail(std::current_exception());
    }
  }

  const cached_route& route_;
  const entry_table::key key_;
  std::shared_ptr<flight> run_;
};

bool failed_answer(const response& r) noexcept { return to_int(r.status()) >= 500; }

// A request that found a run going for its key waits for it; null when it
// cannot (no executor, too many waiters, the run just ended).
std::shared_ptr<cache_waiter> join(const cached_route& route, flight& run, request& req, const cached_call& call) {
  std::shared_ptr<cache_waiter> w = make_waiter(req, call.handler, call.args, call.arg_count);
  if (!w) return nullptr;
  {
    const std::lock_guard lock(run.mutex);
    if (!run.done && run.waiters.size() < route.store().options.max_waiters) {
      run.waiters.push_back(w);
      return w;
    }
  }
  w->home->release();
  return nullptr;
}

response lead(const cached_route& route, request& req, const cached_call& call, const entry_table::key& k,
              std::shared_ptr<flight> run, const std::shared_ptr<const cache_entry>& stale) {
  route_counters& n = route.counters();
  leader_run leader(route, k, std::move(run));
  bump(n.misses);
  response r;
  std::exception_ptr failure;
  try {
    r = run_handler(call, req);
  } catch (...) {
    failure = std::current_exception();
  }
  if ((failure || failed_answer(r)) && stale && cache_clock::now() < stale->error_until) {
    // stale-if-error: the stale answer for this request and its waiters.
    leader.finish(stale, false);
    bump(n.hits);
    bump(n.stale_hits);
    return entry_answer(route, k, *stale, read_hit_request(req), true);
  }
  if (failure) std::rethrow_exception(failure);
  const cache_policy& policy = route.policy();
  if (response_access::pending(r) != nullptr || !storable_head(r, policy)) {
    bump(n.not_stored);
    return r;
  }
  if (r.is_stream()) return tee_stream(route, req, std::move(r), std::string(k.text), leader.epoch(), call.compress);
  const entry_facts facts{policy, route.store().options.compression, call.compress, route.index(), cache_clock::now()};
  std::shared_ptr<const cache_entry> e =
      make_entry(r, std::make_shared<const std::string>(r.body()), facts, answer_tags(policy, req, r));
  if (!e) {
    bump(n.not_stored);
    return r;
  }
  leader.finish(e, true);
  return entry_answer(route, k, *e, read_hit_request(req), false);
}

response miss(const cached_route& route, request& req, const cached_call& call, const entry_table::key& hit_key,
              const std::shared_ptr<const cache_entry>& stale) {
  route_counters& n = route.counters();
  // The key's buffer is this thread's, and the handler may dispatch through
  // another cached route: the run keeps a copy.
  const std::string text(hit_key.text);
  const entry_table::key k{text, hit_key.hash};
  entry_table& table = route.store().table;
  entry_table::claim_result claim = table.claim(k);
  if (claim.leader) return lead(route, req, call, k, std::move(claim.run), stale);
  if (std::shared_ptr<cache_waiter> w = join(route, *claim.run, req, call)) {
    bump(n.waits);
    return response_access::make_pending(w->slot);
  }
  // The run ended meanwhile (its entry may be there now), or waiting is not possible.
  if (std::shared_ptr<const cache_entry> e = table.find(k, cache_clock::now());
      e && cache_clock::now() < e->fresh_until) {
    bump(n.hits);
    return entry_answer(route, k, *e, read_hit_request(req), true);
  }
  bump(n.bypasses);
  return run_handler(call, req);
}

}  // namespace

response answer_cached(const cached_route& route, request& req, const cached_call& call) {
  const cache_policy& policy = route.policy();
  route_counters& n = route.counters();
  if (!may_use_cache(req, policy)) {
    bump(n.bypasses);
    return run_handler(call, req);
  }
  const entry_table::key k = entry_table::make_key(build_cache_key(req, route.index(), policy));
  const cache_clock::time_point now = cache_clock::now();
  std::shared_ptr<const cache_entry> e = route.store().table.find(k, now);
  if (!e || now >= e->revalidate_until) return miss(route, req, call, k, e);
  bump(n.hits);
  if (now >= e->fresh_until) {
    bump(n.stale_hits);
    refresh_in_background(route, req, call, k, e);
  }
  return entry_answer(route, k, *e, read_hit_request(req), true);
}

}  // namespace stet::detail
