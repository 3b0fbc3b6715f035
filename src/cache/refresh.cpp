// stale-while-revalidate: the stale answer goes out at once and one
// background run of the handler (per key: the entry's `refreshing` flag)
// replaces it. The run gets a copy of the request, since the original's bytes
// are reused as soon as its answer is written. A run that fails (throws, 5xx)
// leaves the stale entry in place: stale-if-error serves it until its window
// ends. A run that began before an invalidation covering it is not stored.
// A refresh runs only while its route lives (refresh_gate.hpp).
#include "cache/cache_flow.hpp"
#include "cache/refresh_gate.hpp"
#include "cache/store_rules.hpp"
#include "coro/executor.hpp"
#include "coro/local_loop.hpp"
#include "request/request_access.hpp"
#include "response/response_access.hpp"
#include "route/params_access.hpp"
#include "route/pending_response.hpp"

#include <stet/test_request.hpp>

#include <deque>
#include <optional>

namespace stet::detail {
namespace {

// A request the refresh owns: the same method, target, fields, peer and
// route parameters (names and values) as the one that found the entry stale.
struct request_copy {
  explicit request_copy(const request& from) : owned(stet::method::get, from.target()) {
    for (const header_field& f : from.header_fields()) owned.header(f.name, f.value);
    owned.peer(from.remote_endpoint());
    owned.scheme(from.is_secure() ? "https" : "http");
  }
  std::string_view keep(std::string_view s) { return strings.emplace_back(s); }

  test_request owned;
  std::deque<std::string> strings;  // a deque keeps their addresses
  std::array<std::string_view, max_route_params> names{};
  std::array<capture, max_route_params> params{};
  std::array<capture, max_route_params> args{};
};

std::unique_ptr<request_copy> copy_request(const request& req, const cached_call& call) {
  auto c = std::make_unique<request_copy>(req);
  const route_params& p = req.params();
  const std::size_t count = std::min(p.size(), max_route_params);
  for (std::size_t i = 0; i < count; ++i) {
    const route_param& item = *(p.begin() + i);
    c->names[i] = c->keep(item.name);
    c->params[i] = capture{c->keep(item.value), c->keep(item.raw), 0};
  }
  route_params_access::bind(request_access::params(c->owned.get()), p.pattern(), route_params_access::route_id(p),
                            c->names.data(), c->params.data(), count);
  for (std::size_t i = 0; i < std::min(call.arg_count, max_route_params); ++i) {
    c->args[i] = capture{c->keep(call.args[i].value), c->keep(call.args[i].raw), call.args[i].number};
  }
  return c;
}

// The handler's answer on this thread, waiting here (on a loop of its own)
// for an asynchronous or coroutine handler; nullopt when it failed.
std::optional<response> run_here(const handler_box& handler, request& req, const capture* args) noexcept {
  local_loop loop;
  const executor_scope on_this_thread(&loop);
  try {
    response r = handler.invoke(handler, req, args);
    const std::shared_ptr<pending_response> slot = response_access::take_pending(r);
    if (!slot) return r;
    if (slot->on_ready(&local_loop::wake_waiter, loop.waiter())) {
      loop.run_until([&slot] { return slot->ready(); });
    }
    response answer = slot->take();
    if (slot->dropped() || slot->failure()) return std::nullopt;
    return answer;
  } catch (...) {
    return std::nullopt;
  }
}

void refresh(const cached_route& route, request_copy& copy, const cached_call& call, const entry_table::key& k,
             std::uint64_t epoch) noexcept {
  route_counters& n = route.counters();
  bump(n.refreshes);
  std::optional<response> r = run_here(*call.handler, copy.owned, copy.args.data());
  if (!r || to_int(r->status()) >= 500) return;  // the stale entry stays: stale-if-error
  const cache_policy& policy = route.policy();
  try {
    if (!storable_head(*r, policy) || r->is_stream()) {
      bump(n.not_stored);
      return;
    }
    const entry_facts facts{policy, route.store().options.compression, call.compress, route.index(),
                            cache_clock::now()};
    const std::shared_ptr<const cache_entry> e =
        make_entry(*r, std::make_shared<const std::string>(r->body()), facts, answer_tags(policy, copy.owned, *r));
    if (!e || !route.store().table.store(k, e, epoch)) bump(n.not_stored);
  } catch (...) {
    bump(n.not_stored);  // out of memory, or the tags function threw
  }
}

}  // namespace

void refresh_in_background(const cached_route& route, const request& req, const cached_call& call,
                           const entry_table::key& key, const std::shared_ptr<const cache_entry>& stale) {
  if (stale->refreshing.exchange(true, std::memory_order_acq_rel)) return;
  try {
    const std::uint64_t epoch = route.store().table.log().now();
    // Neither the route nor the handler is owned by the job (refresh_gate.hpp):
    // both are reached only inside the route's gate, while the route is alive.
    auto job = [gate = route.gate(), at = &route, copy = std::shared_ptr<request_copy>(copy_request(req, call)),
                handler = std::weak_ptr<const handler_box>(call.handler), compress = call.compress,
                text = std::string(key.text), hash = key.hash, stale, epoch]() noexcept {
      if (const refresh_gate::pass inside(*gate); inside.entered()) {
        if (const std::shared_ptr<const handler_box> h = handler.lock()) {
          const cached_call again{h, copy->args.data(), max_route_params, compress};
          refresh(*at, *copy, again, {text, hash}, epoch);
        }
      }
      stale->refreshing.store(false, std::memory_order_release);
    };
    if (route.store().background.post(std::move(job))) return;
  } catch (...) {
    // Out of memory copying the request: a later stale hit asks again.
  }
  stale->refreshing.store(false, std::memory_order_release);
}

}  // namespace stet::detail
