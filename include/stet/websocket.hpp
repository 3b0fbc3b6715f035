#pragma once
/// @file
/// WebSocket routes (RFC 6455, permessage-deflate RFC 7692):
///
/// @code
/// struct member { std::string room; };
/// routes.websocket("/chat/{room}", options,
///     stet::websocket_handlers<member>{
///         .open = [](stet::websocket<member>& ws) { ws.subscribe(ws.data().room); },
///         .message = [](stet::websocket<member>& ws, std::string_view text, stet::message_kind kind) {
///           ws.publish(ws.data().room, text, kind);
///         }},
///     [](stet::request& req, std::string_view room) -> stet::upgrade_result<member> {
///       if (!req.header("cookie")) return stet::response(stet::status::unauthorized);
///       return member{std::string(room)};
///     });
/// @endcode
///
/// A WebSocket route is a GET route: middleware runs before it like before any
/// handler, and its pattern's parameters reach the upgrade step typed. A GET
/// without the upgrade headers gets 426; the upgrade step may refuse with any
/// answer, or accept with the connection's user data. After the 101 the
/// connection belongs to a session on the same worker thread: every callback
/// runs there, one at a time per socket.

#include <stet/detail/websocket_core.hpp>
#include <stet/request.hpp>
#include <stet/response.hpp>
#include <stet/router.hpp>
#include <stet/websocket_message.hpp>
#include <stet/websocket_options.hpp>

#include <concepts>
#include <functional>
#include <memory>
#include <optional>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>

namespace stet {

namespace detail {
template <class T>
class websocket_route;
}  // namespace detail

/// A socket held beyond its callbacks: send() and close() from any thread
/// (handed to the socket's worker). Copyable; an empty or closed handle sends
/// nothing. Holding one keeps a little of the session's memory, not its
/// connection: the connection closes when the peer or the server says so.
class websocket_handle {
 public:
  /// An empty handle.
  websocket_handle() noexcept = default;

  /// Sends a message: at once on the socket's own thread, otherwise copied
  /// and posted to it (send_status::posted); the back-pressure rules apply
  /// when it arrives there. send_status::dropped when that worker's mailbox
  /// is full (server_options::websocket_mailbox_messages / _bytes);
  /// send_status::closed once the socket is closing.
  send_status send(std::string_view payload, message_kind kind = message_kind::text) const {
    return core_ ? core_->post_send(payload, kind) : send_status::closed;
  }
  /// Starts the close handshake with `code` and `reason` (cut to 123 bytes),
  /// from any thread; never refused by a full mailbox (the first close wins).
  void close(std::uint16_t code = close_code::normal, std::string_view reason = {}) const {
    if (core_) core_->post_close(code, reason);
  }
  /// Whether the socket is open (it may close right after the answer).
  bool is_open() const noexcept { return core_ && core_->is_open(); }
  /// Whether this handle refers to a socket.
  explicit operator bool() const noexcept { return core_ != nullptr; }

 private:
  template <class T>
  friend class websocket;  // websocket::handle() makes them
  explicit websocket_handle(std::shared_ptr<detail::websocket_core> core) noexcept : core_(std::move(core)) {}

  std::shared_ptr<detail::websocket_core> core_;
};

/// The socket a callback is given, for the length of the call (keep a
/// handle() to send later or from elsewhere). Its members run on the
/// socket's worker thread only; `T` is the route's user data type.
template <class T = std::monostate>
class websocket {
 public:
  /// The user data the upgrade step accepted with; lives as long as the session.
  T& data() noexcept { return *static_cast<T*>(core_->user_data()); }

  /// Queues a message (text must be UTF-8). It is written when the current
  /// callback returns, together with everything else queued meanwhile (one
  /// write for a batch). Compressed when permessage-deflate is on and the
  /// message is at least compression.min_bytes long.
  send_status send(std::string_view payload, message_kind kind = message_kind::text) {
    return core_->send(payload, kind);
  }
  /// Starts the close handshake: a close frame with `code` (1000, 1001,
  /// 1003, 1007-1014 or 3000-4999; others send none) and `reason` (cut to 123
  /// bytes); later messages from the peer are ignored, and on_close follows
  /// with the peer's answer (or 1006 when none comes within close_timeout).
  void close(std::uint16_t code = close_code::normal, std::string_view reason = {}) { core_->close(code, reason); }
  /// Closes the TCP connection at once, dropping what is queued; on_close gets 1006.
  void terminate() noexcept { core_->terminate(); }

  /// Receives what is published to `topic` from now on (any worker). False
  /// when already subscribed or closing.
  bool subscribe(std::string_view topic) { return core_->subscribe(topic); }
  /// Stops receiving `topic`; false when not subscribed.
  bool unsubscribe(std::string_view topic) noexcept { return core_->unsubscribe(topic); }
  /// Whether subscribed to `topic`.
  bool is_subscribed(std::string_view topic) const noexcept { return core_->is_subscribed(topic); }
  /// Sends `message` to every subscriber of `topic` on every worker, this
  /// socket included if it subscribes: the frame is built once and shared.
  /// Returns whether the topic had subscribers. Subscribers over
  /// max_backpressure miss it (or close, with close_on_backpressure_limit).
  bool publish(std::string_view topic, std::string_view message, message_kind kind = message_kind::text) {
    return core_->publish(topic, message, kind);
  }

  /// Bytes queued and not yet written.
  std::size_t buffered_amount() const noexcept { return core_->buffered_amount(); }
  /// The peer's address (the TCP peer: behind a proxy, capture the client's
  /// address from the request in the upgrade step).
  const endpoint& remote_endpoint() const noexcept { return core_->remote_endpoint(); }
  /// The subprotocol agreed, or empty.
  std::string_view protocol() const noexcept { return core_->protocol(); }
  /// Whether permessage-deflate was agreed.
  bool compressed() const noexcept { return core_->compressed(); }
  /// Whether messages can still be sent (false once a close was sent or received).
  bool is_open() const noexcept { return core_->is_open(); }
  /// A handle for sending later or from another thread.
  websocket_handle handle() const { return websocket_handle(core_->share()); }

 private:
  friend class detail::websocket_route<T>;  // the route makes one for each callback
  explicit websocket(detail::websocket_core& core) noexcept : core_(&core) {}

  detail::websocket_core* core_;
};

/// The callbacks of a WebSocket route; any may be empty. They run on the
/// socket's worker thread. One that throws closes the socket with 1011 (the
/// exception text goes to the router's on_error() or the server's
/// error_reporter).
template <class T = std::monostate>
struct websocket_handlers {
  /// After the 101: the socket is open (subscribe here).
  std::function<void(websocket<T>&)> open{};
  /// A whole message; the view lives until the callback returns.
  std::function<void(websocket<T>&, std::string_view message, message_kind kind)> message{};
  /// The send queue, which was over max_backpressure, has been written out.
  std::function<void(websocket<T>&)> drain{};
  /// Once, when the socket stops being open: the peer's close code and
  /// reason (1005: none given), the code stet closed with after a protocol
  /// failure (1002, 1007, 1009, 1011), or 1006 when the connection ended
  /// without a close handshake. Sends fail from here on; data() is still there.
  std::function<void(websocket<T>&, std::uint16_t code, std::string_view reason)> close{};
};

/// What an upgrade step decides: accept with the connection's user data, or
/// refuse with an answer (401, 403, a redirect: anything but 101).
template <class T>
class upgrade_result {
 public:
  /// Accepts; `data` becomes websocket<T>::data().
  upgrade_result(T data) : data_(std::move(data)) {}  // NOLINT(google-explicit-constructor): `return member{...};`
  /// Refuses with `answer`.
  upgrade_result(response answer) : refusal_(std::move(answer)) {}  // NOLINT(google-explicit-constructor)
  /// Refuses with an empty answer of status `s`.
  upgrade_result(stet::status s) : refusal_(response(s)) {}  // NOLINT(google-explicit-constructor)

  /// Whether the upgrade was accepted.
  bool accepted() const noexcept { return data_.has_value(); }
  /// The user data (accepted() only).
  T&& take_data() && noexcept { return std::move(*data_); }
  /// The refusal (!accepted() only).
  response&& take_refusal() && noexcept { return std::move(*refusal_); }

 private:
  std::optional<T> data_;
  std::optional<response> refusal_;
};

namespace detail {

template <class T>
class websocket_route final : public websocket_route_base {
 public:
  websocket_route(const websocket_options& options, websocket_handlers<T> handlers)
      : websocket_route_base(options), handlers_(std::move(handlers)) {}

  void on_open(websocket_core& core) const override {
    if (!handlers_.open) return;
    websocket<T> ws(core);
    handlers_.open(ws);
  }
  void on_message(websocket_core& core, std::string_view message, message_kind kind) const override {
    if (!handlers_.message) return;
    websocket<T> ws(core);
    handlers_.message(ws, message, kind);
  }
  void on_drain(websocket_core& core) const override {
    if (!handlers_.drain) return;
    websocket<T> ws(core);
    handlers_.drain(ws);
  }
  void on_close(websocket_core& core, std::uint16_t code, std::string_view reason) const override {
    if (!handlers_.close) return;
    websocket<T> ws(core);
    handlers_.close(ws, code, reason);
  }

 private:
  websocket_handlers<T> handlers_;
};

/// An upgrade step: `(request&, A...)` with the route's parameters typed as
/// for handlers, returning something an upgrade_result<T> is made from.
template <class U, class T>
concept upgrade_step = requires {
  typename handler_args<U>;
}
&&requires { requires std::is_convertible_v<typename handler_signature<U>::result, upgrade_result<T>>; };

/// The GET handler of a WebSocket route: the handshake's checks, then the
/// user's upgrade step with the route parameters, then the 101. Its
/// parameter list is the step's, so add() checks it against the pattern.
template <class T, class U, class Req, class... A>
auto make_upgrade_handler(std::shared_ptr<const websocket_route<T>> route, U step, arg_list<Req, A...> /*args*/) {
  return [route = std::move(route), step = std::move(step)](request& req, A... args) -> response {
    if (std::optional<response> refused = refuse_websocket_upgrade(req, *route)) return std::move(*refused);
    upgrade_result<T> decided = step(req, std::forward<A>(args)...);
    if (!decided.accepted()) return std::move(decided).take_refusal();
    return accept_websocket_upgrade(req, route,
                                    std::make_unique<websocket_user_data_of<T>>(std::move(decided).take_data()));
  };
}

}  // namespace detail

// Out-of-class member templates, documented at their declarations in routing_api.hpp.
/// @cond
template <class Self>
template <detail::pattern_source P, class T, class U>
Self& routing_api<Self>::websocket(const P& pattern, const websocket_options& options, websocket_handlers<T> handlers,
                                   U&& upgrade) {
  static_assert(detail::upgrade_step<std::decay_t<U>, T>,
                "the upgrade step must be (stet::request&, route parameters...) returning stet::upgrade_result<T> "
                "(or a T to accept, a stet::response or stet::status to refuse); T is the handlers' user data type");
  auto route = std::make_shared<const detail::websocket_route<T>>(options, std::move(handlers));
  route_options ro;
  ro.name = options.name;
  ro.compress = false;
  return add(stet::method::get, pattern, ro,
             detail::make_upgrade_handler(std::move(route), std::decay_t<U>(std::forward<U>(upgrade)),
                                          detail::handler_args<std::decay_t<U>>{}));
}

template <class Self>
template <detail::pattern_source P, class T>
Self& routing_api<Self>::websocket(const P& pattern, const websocket_options& options, websocket_handlers<T> handlers) {
  static_assert(std::default_initializable<T>, "without an upgrade step the user data is made with T{}");
  return websocket(pattern, options, std::move(handlers), [](request&) -> upgrade_result<T> { return T{}; });
}
/// @endcond

}  // namespace stet
