#pragma once
/// @file
/// What routes are made of: the handler and middleware concepts that
/// router::add(), before(), after() and use() accept, and per-route options.

#include <stet/detail/route_handler.hpp>
#include <stet/request.hpp>
#include <stet/response.hpp>

#include <concepts>
#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <type_traits>

namespace stet {

namespace detail {
class cached_route;
}  // namespace detail

/// Per-route settings.
struct route_options {
  std::string_view name{};  ///< name for url_for(); empty for none; unique per router (copied)
  /// False: this route's answers are never compressed (as response::no_compression()),
  /// whatever server_options::compression says - for routes that reflect secrets (BREACH).
  bool compress = true;
  /// The most request body bytes this route takes, instead of
  /// server_options::max_body_bytes (0: the server's). Decided from the head,
  /// before 100 Continue: a larger Content-Length is answered 413 at once, a
  /// chunked body that grows past it is answered 413 when it does.
  std::uint64_t max_body_bytes = 0;
  /// Call the handler as soon as the head is complete, with no body yet; the
  /// handler takes the body as it arrives by returning stet::read_body(sink),
  /// or answers at once (401, 413, ...) before any of it is read. Middleware
  /// before-hooks run on the head too.
  bool stream_body = false;
  /// Answers kept by a stet::response_cache: set by response_cache::route(),
  /// which says how (null: every request runs the handler).
  std::shared_ptr<const detail::cached_route> cache{};
};

/// A handler: `response(request&)`, or `response(request&, A...)` where each
/// `A` (std::int64_t, std::uint64_t or std::string_view, by value) receives one
/// route parameter in pattern order. Asynchronous handlers take a responder
/// after the request and return void: `void(request&, responder, A...)`; they
/// answer with responder::send(), later and from any thread (see responder).
/// Coroutine handlers return a task instead of a response:
/// `task<response>(request&, A...)` (see stet::task, stet::offload).
/// Called concurrently from worker threads through a const reference, so it
/// must be safe to call that way.
template <class F>
concept route_handler = detail::plain_handler<F> || detail::async_plain_handler<F> || detail::coro_plain_handler<F> ||
    detail::typed_handler<F>;

/// How hooks are called: on a const object, from any worker thread.
template <class F>
using const_callable = const std::remove_cvref_t<F>&;

/// A middleware `before` hook: returning a response short-circuits the chain.
template <class F>
concept before_hook = requires(const_callable<F> f, request& q) {
  { f(q) } -> std::same_as<std::optional<response>>;
};

/// A middleware `after` hook: sees (and may edit) the response on its way out.
template <class F>
concept after_hook = std::invocable<const_callable<F>, request&, response&>;

/// A middleware object's `before(request&) -> std::optional<response>` member.
template <class M>
concept has_before = requires(const std::remove_cvref_t<M>& m, request& q) {
  { m.before(q) } -> std::same_as<std::optional<response>>;
};
/// A middleware object's `after(request&, response&)` member.
template <class M>
concept has_after = requires(const std::remove_cvref_t<M>& m, request& q, response& r) {
  m.after(q, r);
};
/// A middleware object: `before`, `after` or both, callable on a const object.
template <class M>
concept middleware = has_before<M> || has_after<M>;

}  // namespace stet
