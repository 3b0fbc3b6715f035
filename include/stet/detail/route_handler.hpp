#pragma once
// Internal: not part of stet's API. include/stet/detail/ holds only what the
// public templates need to see (CONTRIBUTING.md, "Where a change goes").
// Turns a user's handler into a type-erased box once, at add(): its C++
// signature is read here at compile time, and the adapter that converts the
// matched segments into its arguments is instantiated here. Dispatch then
// makes one indirect call with the already-converted values.

#include <stet/detail/route_pattern.hpp>
#include <stet/request.hpp>
#include <stet/responder.hpp>
#include <stet/response.hpp>
#include <stet/task.hpp>

#include <concepts>
#include <cstdint>
#include <limits>
#include <memory>
#include <span>
#include <string_view>
#include <utility>

namespace stet::detail {

/// One matched parameter as dispatch hands it to the adapter: integer classes
/// are converted once, while matching, and kept in `number`. Trivial, so that
/// dispatch's array of them costs nothing to set up.
struct capture {
  std::string_view value;  ///< decoded
  std::string_view raw;    ///< as sent
  std::uint64_t number;    ///< int (two's complement bits) and uint classes
};

/// What a handler parameter after the request can receive.
enum class arg_kind : std::uint8_t { text, int64, uint64 };

/// A handler parameter's kind and, for an integer, the values its type holds:
/// a capture outside them is no match (a 404), as an int64 overflow is.
struct arg_type {
  arg_kind kind;
  std::int64_t min;   ///< the least value (int64 kind)
  std::uint64_t max;  ///< the greatest value (integer kinds)
  /// Narrower than the 64 bits a capture is converted to: checked after matching.
  constexpr bool narrow() const noexcept {
    return (kind == arg_kind::int64 && max < std::uint64_t{INT64_MAX}) ||
           (kind == arg_kind::uint64 && max < std::uint64_t{UINT64_MAX});
  }
  friend constexpr bool operator==(const arg_type&, const arg_type&) = default;
};

/// An integer type a route parameter converts to: signed ones take {x:int},
/// unsigned ones {x:uint}. Not bool, not the character types (char, wchar_t,
/// char8_t, char16_t, char32_t): a number read into a character is a mistake.
template <class T>
concept route_integer =
    std::integral<T> && !std::same_as<T, bool> && !std::same_as<T, char> && !std::same_as<T, wchar_t> &&
    !std::same_as<T, char8_t> && !std::same_as<T, char16_t> && !std::same_as<T, char32_t>;
template <class T>
concept route_arg = std::same_as<T, std::string_view> || route_integer<T>;

template <route_arg T>
constexpr arg_type arg_type_of() noexcept {
  if constexpr (std::same_as<T, std::string_view>) {
    return {arg_kind::text, 0, 0};
  } else if constexpr (std::signed_integral<T>) {
    return {arg_kind::int64, std::numeric_limits<T>::min(), static_cast<std::uint64_t>(std::numeric_limits<T>::max())};
  } else {
    return {arg_kind::uint64, 0, std::numeric_limits<T>::max()};
  }
}

/// Whether a handler parameter of kind `a` can take a pattern parameter of kind `k`.
constexpr bool accepts(arg_kind a, segment_kind k) noexcept {
  switch (a) {
    case arg_kind::text: return true;
    case arg_kind::int64: return k == segment_kind::int64;
    case arg_kind::uint64: return k == segment_kind::uint64;
  }
  return false;
}

/// Whether the integer captures fit their parameters' types (`captured`: the
/// handler's own, one per element of `args`).
inline bool in_range(std::span<const arg_type> args, const capture* captured) noexcept {
  for (std::size_t i = 0; i < args.size(); ++i) {
    const arg_type& a = args[i];
    const std::uint64_t bits = captured[i].number;
    if (a.kind == arg_kind::uint64 && bits > a.max) return false;
    if (a.kind == arg_kind::int64) {
      const auto value = static_cast<std::int64_t>(bits);
      if (value < a.min || (value > 0 && static_cast<std::uint64_t>(value) > a.max)) return false;
    }
  }
  return true;
}

// A callable's parameter list, read from its one non-template operator() or
// from a function pointer. Generic lambdas have none; they may still be plain
// handlers (request& only).
template <class... A>
struct arg_list {};

template <class T>
struct signature_of {};
template <class R, class... A>
struct signature_of<R (*)(A...)> {
  using args = arg_list<A...>;
  using result = R;
};
template <class R, class... A>
struct signature_of<R (*)(A...) noexcept> {
  using args = arg_list<A...>;
  using result = R;
};
template <class R, class C, class... A>
struct signature_of<R (C::*)(A...) const> {
  using args = arg_list<A...>;
  using result = R;
};
template <class R, class C, class... A>
struct signature_of<R (C::*)(A...) const noexcept> {
  using args = arg_list<A...>;
  using result = R;
};

template <class F>
struct call_operator {
  using type = decltype(&F::operator());
};
template <class F>
requires std::is_pointer_v<F>
struct call_operator<F> {
  using type = F;
};

template <class F>
using handler_signature = signature_of<typename call_operator<std::decay_t<F>>::type>;
template <class F>
using handler_args = typename handler_signature<F>::args;

template <class Req>
concept request_param = std::same_as<Req, request&> || std::same_as<Req, const request&>;
// By value or by const reference: the adapter passes converted temporaries.
template <class A>
concept route_arg_param = route_arg<std::remove_cvref_t<A>> && std::is_convertible_v<std::remove_cvref_t<A>, A>;

// An asynchronous handler takes its responder by value or by rvalue reference.
template <class R>
concept responder_param = std::same_as<R, responder> || std::same_as<R, responder&&>;

template <class L>
struct typed_args : std::false_type {};
template <request_param Req, route_arg_param... A>
struct typed_args<arg_list<Req, A...>> : std::bool_constant<(sizeof...(A) <= max_route_params)> {
  static constexpr bool async = false;
  using route_args = arg_list<A...>;
  static constexpr std::array<arg_type, sizeof...(A)> kinds{arg_type_of<std::remove_cvref_t<A>>()...};
};
template <request_param Req, responder_param R, route_arg_param... A>
struct typed_args<arg_list<Req, R, A...>> : std::bool_constant<(sizeof...(A) <= max_route_params)> {
  static constexpr bool async = true;
  using route_args = arg_list<A...>;
  static constexpr std::array<arg_type, sizeof...(A)> kinds{arg_type_of<std::remove_cvref_t<A>>()...};
};

/// How handlers are called: on a const object, from any worker thread.
template <class F>
using callable_ref = const std::decay_t<F>&;

/// A handler that takes only the request (parameters via request::param()).
template <class F>
concept plain_handler = requires(callable_ref<F> f, request& q) {
  { f(q) } -> std::convertible_to<response>;
};

/// An asynchronous handler that takes only the request and its responder.
template <class F>
concept async_plain_handler = !plain_handler<F> && requires(callable_ref<F> f, request& q, responder r) {
  { f(q, std::move(r)) } -> std::same_as<void>;
};

/// A coroutine handler that takes only the request: `task<response>(request&)`.
template <class F>
concept coro_plain_handler = !plain_handler<F> && requires(callable_ref<F> f, request& q) {
  { f(q) } -> std::same_as<task<response>>;
};

template <class L, class R>
constexpr bool result_fits() noexcept {
  if constexpr (L::async) {
    return std::is_void_v<R>;
  } else {
    return std::is_convertible_v<R, response> || is_handler_task<R>;
  }
}

template <class F>
concept typed_signature = requires {
  requires typed_args<handler_args<F>>::value;
  requires result_fits < typed_args<handler_args<F>>,
  typename handler_signature<F>::result > ();
};

/// A handler whose parameters after the request (and, for an asynchronous
/// one, its responder) receive the route's parameters, converted:
/// `(request&, std::int64_t id, std::string_view slug)`; it may return a
/// response or a task<response>.
template <class F>
concept typed_handler = !plain_handler<F> && !async_plain_handler<F> && !coro_plain_handler<F> && typed_signature<F>;

/// Takes only the request (and maybe a responder): route parameters via request::param().
template <class F>
inline constexpr bool takes_no_route_args = plain_handler<F> || async_plain_handler<F> || coro_plain_handler<F>;

/// The types of a handler's route arguments (empty for a plain handler).
template <class F>
constexpr std::span<const arg_type> handler_arg_kinds() noexcept {
  if constexpr (takes_no_route_args<F>) {
    return {};
  } else {
    return typed_args<handler_args<F>>::kinds;
  }
}

/// Whether a handler's arguments fit a pattern's parameters: a plain handler
/// fits any pattern; a typed one needs one argument per parameter, each able to
/// receive that parameter's class.
constexpr bool handler_fits(std::span<const arg_type> args, bool plain, const pattern_shape& shape) noexcept {
  if (plain) return true;
  if (args.size() != shape.params) return false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (!accepts(args[i].kind, shape.kinds[i])) return false;
  }
  return true;
}

template <route_arg T>
T convert(const capture& c) noexcept {
  if constexpr (std::same_as<T, std::string_view>) {
    return c.value;
  } else {
    return static_cast<T>(c.number);
  }
}

class pending_response;
/// A fresh answer slot for an asynchronous handler.
std::shared_ptr<pending_response> new_pending();
/// The handler's answer when it sent before returning; otherwise a response
/// that tells the caller to wait for `state`.
response settle(std::shared_ptr<pending_response> state);

/// Runs a handler's task until it completes or first suspends (src/route/coro_root.cpp).
response start_root(std::coroutine_handle<task_promise<response>> frame);

/// Runs a coroutine handler's task.
inline response run_task(task<response> t) { return start_root(task_access::release(t)); }

/// The one maker of responders (their constructor is private: users only
/// receive them).
struct responder_access {
  static responder make(std::shared_ptr<pending_response> state) noexcept { return responder(std::move(state)); }
};

/// Runs an asynchronous handler: `call(responder)` starts it.
template <class Call>
response run_async(Call&& call) {
  std::shared_ptr<pending_response> state = new_pending();
  call(responder_access::make(state));
  return settle(std::move(state));
}

/// A type-erased handler: one function pointer that runs the generated adapter.
struct handler_box {
  using invoke_fn = response (*)(const handler_box& self, request& req, const capture* args);
  invoke_fn invoke;
  std::span<const arg_type> args;  ///< the handler's route argument types (for the check at add())
  bool plain;                      ///< takes only the request
  bool narrow;                     ///< some integer argument is narrower than 64 bits: matching checks in_range()
};

template <class F>
constexpr bool has_narrow_args() noexcept {
  for (const arg_type& a : handler_arg_kinds<F>()) {
    if (a.narrow()) return true;
  }
  return false;
}

template <class F>
struct handler_holder : handler_box {
  // By value: registration moves the handler in once more, and no forwarding
  // constructor can stand in for the copy or move constructor.
  explicit handler_holder(F f)
      : handler_box{&call, handler_arg_kinds<F>(), takes_no_route_args<F>, has_narrow_args<F>()}, fn(std::move(f)) {}

  static response call(const handler_box& self, request& req, const capture* captured) {
    const F& target = static_cast<const handler_holder&>(self).fn;
    if constexpr (plain_handler<F>) {
      (void)captured;
      return target(req);
    } else if constexpr (async_plain_handler<F>) {
      (void)captured;
      return run_async([&](responder r) { target(req, std::move(r)); });
    } else if constexpr (coro_plain_handler<F>) {
      (void)captured;
      return run_task(target(req));
    } else {
      using list = typed_args<handler_args<F>>;
      using indexes = std::make_index_sequence<list::kinds.size()>;
      if constexpr (list::async) {
        return run_async([&](responder r) {
          call_typed(target, req, captured, typename list::route_args{}, indexes{}, std::move(r));
        });
      } else if constexpr (is_handler_task<typename handler_signature<F>::result>) {
        return run_task(call_typed(target, req, captured, typename list::route_args{}, indexes{}));
      } else {
        return response(call_typed(target, req, captured, typename list::route_args{}, indexes{}));
      }
    }
  }

  // `lead`: the responder of an asynchronous handler, nothing otherwise.
  template <class... A, std::size_t... I, class... Lead>
  static decltype(auto) call_typed(const F& target, request& req, const capture* captured, arg_list<A...>,
                                   std::index_sequence<I...>, Lead&&... lead) {
    return target(req, std::forward<Lead>(lead)..., convert<std::remove_cvref_t<A>>(captured[I])...);
  }

  F fn;
};

/// Boxes `f` (moved or copied into shared ownership: mounted routers share it).
template <class F>
std::shared_ptr<const handler_box> make_handler_box(F&& f) {
  return std::make_shared<handler_holder<std::decay_t<F>>>(std::forward<F>(f));
}

/// A pattern known at compile time (see stet::literals::operator""_route).
template <std::size_t N>
struct fixed_string {
  char chars[N]{};
  consteval fixed_string(const char (&s)[N]) {
    for (std::size_t i = 0; i < N; ++i) chars[i] = s[i];
  }
  constexpr std::string_view view() const noexcept { return {chars, N - 1}; }
};

}  // namespace stet::detail
