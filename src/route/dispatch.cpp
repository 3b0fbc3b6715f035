#include <stet/router.hpp>

#include "coro/local_loop.hpp"
#include "request/request_access.hpp"
#include "response/error_pages.hpp"
#include "response/redirect.hpp"
#include "route/cache_seam.hpp"
#include "route/epoch.hpp"
#include "route/match.hpp"
#include "route/params_access.hpp"
#include "route/pending_response.hpp"
#include "route/router_access.hpp"
#include "route/state.hpp"

#include <array>
#include <cstring>
#include <exception>
#include <utility>

namespace stet {
namespace {

using detail::match_outcome;

// Longest possible value: every routable method, ", "-separated.
constexpr std::size_t allow_capacity = 64;

std::string_view allow_value(std::uint16_t mask, std::array<char, allow_capacity>& out) noexcept {
  mask |= detail::method_bit(method::options);
  if ((mask & detail::method_bit(method::get)) != 0) mask |= detail::method_bit(method::head);
  std::size_t n = 0;
  for (std::size_t i = 0; i < method_count; ++i) {
    const auto m = static_cast<method>(i);
    if (m == method::other || (mask & detail::method_bit(m)) == 0) continue;
    const std::string_view token = to_string(m);
    if (n != 0) {
      std::memcpy(out.data() + n, ", ", 2);
      n += 2;
    }
    std::memcpy(out.data() + n, token.data(), token.size());
    n += token.size();
  }
  return {out.data(), n};
}

// A trailing-slash redirect: the raw path with its last '/' dropped (or one
// added), the query kept.
response slash_redirect(const request& req, bool append_slash) {
  const std::string_view path = req.raw_path();
  // 301 lets clients turn a POST into a GET; 308 keeps method and body.
  const bool safe = req.method() == method::get || req.method() == method::head;
  return detail::local_redirect(req, safe ? status::moved_permanently : status::permanent_redirect,
                                append_slash ? path : path.substr(0, path.size() - 1),
                                append_slash ? detail::add_slash::yes : detail::add_slash::no);
}

response automatic_answer(const match_outcome& o, const request& req) {
  std::array<char, allow_capacity> buffer;
  switch (o.what) {
    case match_outcome::kind::not_allowed: {
      response r = detail::error_page(status::method_not_allowed, req);
      r.set_header("Allow", allow_value(o.allow, buffer));
      return r;
    }
    case match_outcome::kind::options: {
      response r(status::no_content);
      r.set_header("Allow", allow_value(o.allow, buffer));
      return r;
    }
    case match_outcome::kind::redirect: return slash_redirect(req, o.add_slash);
    case match_outcome::kind::route:
    case match_outcome::kind::not_found: break;
  }
  return detail::error_page(status::not_found, req);
}

// Befores in order until one answers; the inner step only if none did; then
// the afters of the layers that were entered, innermost first. An asynchronous
// handler's answer is not there yet: its afters run when it is (finish_pending).
template <class Inner>
response run_chain(const detail::middleware_layer* const* layers, std::size_t size, request& req, Inner&& inner) {
  std::optional<response> out;
  std::size_t entered = 0;
  for (; entered < size; ++entered) {
    const auto& before = layers[entered]->before;
    if (before && (out = before(req))) break;
  }
  if (!out) out.emplace(inner());
  if (detail::pending_response* pending = detail::response_access::pending(*out)) {
    pending->afters.assign(layers, layers + entered);
    return std::move(*out);
  }
  for (std::size_t i = entered; i-- > 0;) {
    if (layers[i]->after) layers[i]->after(req, *out);
  }
  return std::move(*out);
}

// Matches `req` on `t` into `m`, unless `m` already holds its match on `t`.
void match_on(const detail::route_table& t, const request& req, detail::route_match& m) noexcept {
  if (m.generation == t.generation) return;
  m.outcome = detail::match_path(t, req.method(), req.raw_path(), req.arena(), m.captures.items);
  m.generation = t.generation;
}

response dispatch(const detail::route_table& t, request& req, detail::route_match& m) {
  route_params& params = detail::request_access::params(req);
  detail::route_params_access::clear(params);
  match_on(t, req, m);
  const match_outcome& o = m.outcome;
  if (o.what != match_outcome::kind::route) {
    const bool covered = o.what == match_outcome::kind::options && o.preflight_size != 0;
    const std::uint32_t begin = covered ? o.preflight_begin : 0;
    const std::uint32_t size = covered ? o.preflight_size : t.router_chain_size;
    if (size == 0) return automatic_answer(o, req);
    return run_chain(t.chain.data() + begin, size, req, [&] { return automatic_answer(o, req); });
  }
  const detail::route_entry& e = *o.entry;
  const detail::capture* captured = m.captures.items;
  detail::route_params_access::bind(params, e.pattern, e.def->id, t.param_names.data() + e.names_begin, captured,
                                    o.captured);
  const detail::capture* args = captured + e.arg_offset;
  const auto run = [&] {
    if (!e.def->cache) return e.handler->invoke(*e.handler, req, args);
    const detail::cached_call call{e.def->handler, args, o.captured - e.arg_offset, e.def->compress};
    return detail::answer_cached(*e.def->cache, req, call);
  };
  response r = e.chain_size == 0 ? run() : run_chain(t.chain.data() + e.chain_begin, e.chain_size, req, run);
  if (detail::pending_response* pending = detail::response_access::pending(r)) {
    pending->report = t.report;
    pending->compress = e.def->compress;
  } else if (!e.def->compress) {
    r.no_compression();
  }
  return r;
}

// The loop of the router::handle() running on this thread, if any: what a
// coroutine started in it resumes through.
thread_local detail::local_loop* in_process_loop = nullptr;

// Dispatch with failures turned into a 500 (503 for a refused offload); an
// asynchronous answer may be pending.
response guarded_dispatch(const detail::route_table& t, request& req, detail::route_match& m) {
  try {
    return dispatch(t, req, m);
  } catch (...) {
    return detail::failure_answer(std::current_exception(), t.report.get(), req);
  }
}

}  // namespace

router::match router::find(const request& req) const noexcept {
  const detail::epoch::read_section pin;
  const detail::route_table& t = scope_.state().acquire();
  detail::capture_buffer buffer;
  const match_outcome o = detail::match_path(t, req.method(), req.raw_path(), req.arena(), buffer.items);
  switch (o.what) {
    case match_outcome::kind::route: return {status::ok};
    case match_outcome::kind::not_allowed: return {status::method_not_allowed};
    case match_outcome::kind::options: return {status::no_content};
    case match_outcome::kind::redirect:
      return {req.method() == method::get || req.method() == method::head ? status::moved_permanently
                                                                          : status::permanent_redirect};
    case match_outcome::kind::not_found: break;
  }
  return {status::not_found};
}

// The calling thread becomes the executor of whatever the handler awaits until
// the answer is there: a coroutine handler resumes here, and a responder's
// send() from another thread wakes the loop.
response router::handle(request& req) const {
  detail::local_loop loop;
  const detail::executor_scope on_this_thread(&loop);
  detail::local_loop* const outer = std::exchange(in_process_loop, &loop);
  detail::route_match m;
  detail::dispatch_outcome o = detail::router_access::start(*this, req, m);
  response r;
  switch (o.what) {
    case detail::dispatch_outcome::kind::body_sink:
      // A streaming route, in-process: its sink takes the whole body at once.
      r = detail::feed_whole_body(*o.slot, req);
      break;
    case detail::dispatch_outcome::kind::pending:
      detail::wait_in_process(*o.slot);
      r = detail::finish_pending(*o.slot, req);
      break;
    case detail::dispatch_outcome::kind::answer:
    case detail::dispatch_outcome::kind::upgrade: r = std::move(o.answer); break;
  }
  in_process_loop = outer;
  return r;
}

namespace detail {

// The thread turns the loop of its router::handle() (or one of its own) until
// the answer is there: a coroutine handler resumes here, and a responder's
// send() from another thread wakes the loop.
void wait_in_process(pending_response& pending) {
  local_loop own;
  local_loop* const loop = in_process_loop != nullptr ? in_process_loop : &own;
  const executor_scope on_this_thread(loop);
  if (pending.on_ready(&local_loop::wake_waiter, loop->waiter())) {
    loop->run_until([&pending] { return pending.ready(); });
  }
}

body_plan router_access::match(const router& routes, const request& req, route_match& into) noexcept {
  const epoch::read_section pin;
  const route_table& t = routes.scope_.state().acquire();
  match_on(t, req, into);
  const match_outcome& o = into.outcome;
  if (o.what != match_outcome::kind::route) return {};
  return {true, o.entry->def->stream_body, o.entry->def->max_body_bytes};
}

dispatch_outcome router_access::start(const router& routes, request& req, route_match& m) {
  // The pin keeps this table alive until the handler returns, however many
  // tables are swapped in meanwhile. A pending answer's afters point at
  // middleware layers, which the router keeps for its whole life.
  const epoch::read_section pin;
  dispatch_outcome o{guarded_dispatch(routes.scope_.state().acquire(), req, m), dispatch_outcome::kind::answer, nullptr,
                     nullptr};
  o.classify();
  return o;
}

}  // namespace detail

}  // namespace stet
