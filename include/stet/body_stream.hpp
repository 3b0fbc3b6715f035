#pragma once
/// @file
/// stet::body_stream: a coroutine handler on a streaming route reads its
/// request's body piece by piece with co_await, in constant memory.

#include <stet/detail/coro_frame.hpp>

#include <coroutine>
#include <optional>
#include <string_view>
#include <system_error>

namespace stet {

class request;
class body_reader;

namespace detail {

class coro_body;  // the body_sink that feeds a body_reader (src/route/coro_body.cpp)

/// The awaitable of body_stream(): hooks the body up to the handler's task
/// without suspending it.
class body_stream_awaiter {
 public:
  using stet_awaitable_tag = void;  ///< co_await accepts it inside a stet::task

  explicit body_stream_awaiter(request& /*req*/) noexcept {}

  bool await_ready() const noexcept { return false; }
  /// Never suspends: hooks the body up to `waiter`'s chain (may throw std::bad_alloc).
  template <task_promise_type P>
  bool await_suspend(std::coroutine_handle<P> waiter) {
    body_ = open(*waiter.promise().root());
    return false;
  }
  /// The reader; throws std::logic_error when the handler asked too late.
  body_reader await_resume();

 private:
  static coro_body* open(task_root& root);

  coro_body* body_ = nullptr;
};

/// The awaitable of body_reader::next(): suspended until the connection
/// hands over the next piece (src/route/coro_body.cpp).
class body_piece_awaiter final : public suspension {
 public:
  using stet_awaitable_tag = void;  ///< co_await accepts it inside a stet::task

  explicit body_piece_awaiter(body_reader& reader) noexcept : reader_(&reader) {}
  /// Movable only before it is awaited (GCC may move a co_await operand).
  body_piece_awaiter(body_piece_awaiter&&) noexcept = default;
  body_piece_awaiter(const body_piece_awaiter&) = delete;
  body_piece_awaiter& operator=(const body_piece_awaiter&) = delete;
  ~body_piece_awaiter() = default;

  bool await_ready() noexcept;
  template <task_promise_type P>
  void await_suspend(std::coroutine_handle<P> waiter) noexcept {
    wait(waiter, *waiter.promise().root());
  }
  std::optional<std::string_view> await_resume() noexcept;
  bool cancel() noexcept override;

 private:
  void wait(std::coroutine_handle<> waiter, task_root& root) noexcept;

  body_reader* reader_;
};

}  // namespace detail

/// A request body read piece by piece inside a coroutine handler, from
/// `co_await stet::body_stream(req)`. Lives in the handler's frame; every
/// call runs on the connection's worker thread. While the handler has not
/// asked for the next piece the connection reads nothing more (back-pressure),
/// so a piece stays valid across other co_awaits (stet::offload,
/// stet::sleep_for) until next() is awaited again.
///
/// @note Move it only before awaiting next(). Once the body ended, ended
/// early or the handler answered, next() gives std::nullopt at once.
class body_reader {
 public:
  /// Takes over `other`'s body; `other` reads nothing any more.
  body_reader(body_reader&& other) noexcept;
  body_reader& operator=(body_reader&&) = delete;
  body_reader(const body_reader&) = delete;
  body_reader& operator=(const body_reader&) = delete;
  /// Lets go of the body: its unread rest is discarded (or the connection
  /// closed after the answer), as for an answer given before the body.
  ~body_reader();

  /// `co_await body.next()`: the next piece of the body, de-chunked, never
  /// empty; std::nullopt at its end, or when it ended early (see error()).
  /// The view points into the connection's read buffer: valid until next()
  /// is awaited again.
  detail::body_piece_awaiter next() noexcept { return detail::body_piece_awaiter(*this); }

  /// Why the body ended early, once next() gave std::nullopt: the client
  /// went away (std::errc::connection_aborted), the body timeout or minimum
  /// rate tripped (stet::error::body_timeout, body_too_slow), it outgrew the
  /// route's limit (stet::error::body_too_large), its chunked framing is
  /// malformed, or server_options::handler_timeout passed while the handler
  /// held a piece (std::errc::timed_out). Empty while reading and after a
  /// complete body. After an error the connection answers (400, 408, 413 or
  /// 503) or is closed: the handler's own answer is not used, and if it
  /// suspends again it is cancelled there like any abandoned handler.
  std::error_code error() const noexcept;

 private:
  friend class detail::body_stream_awaiter;
  friend class detail::body_piece_awaiter;
  friend class detail::coro_body;
  explicit body_reader(detail::coro_body* body) noexcept;

  detail::coro_body* body_;  // null once either side is done
  std::error_code error_;    // kept when the body's state goes first
};

/// `auto body = co_await stet::body_stream(req);` in a coroutine handler
/// (`stet::task<stet::response>`) on a route added with
/// route_options::stream_body: the handler reads the body piece by piece
/// instead of returning read_body() (elsewhere the body, already whole, comes
/// as one piece). Await it before any other co_await
/// (the connection decides how to read the body when the handler first
/// suspends); awaiting it later, or twice, throws std::logic_error (a 500).
/// A handler that answers without reading the whole body gets the rest
/// discarded, as read_body()'s early answers do.
///
///     routes.post("/sum", streamed, [](stet::request& req) -> stet::task<stet::response> {
///       auto body = co_await stet::body_stream(req);
///       std::size_t n = 0;
///       while (auto piece = co_await body.next()) n += piece->size();
///       if (body.error()) co_return stet::response(stet::status::bad_request);  // not sent: see error()
///       co_return stet::response::text(std::to_string(n));
///     });
inline detail::body_stream_awaiter body_stream(request& req) noexcept { return detail::body_stream_awaiter(req); }

}  // namespace stet
