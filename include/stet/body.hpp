#pragma once
/// @file
/// Streamed request bodies: a route added with route_options::stream_body has
/// its handler called as soon as the head is complete, and takes the body as
/// it arrives through a body_sink, in constant memory, whatever its size.

#include <stet/response.hpp>

#include <cstdint>
#include <memory>
#include <string_view>
#include <system_error>

namespace stet {

namespace detail {
class pending_response;
struct body_sink_access;
}  // namespace detail

/// What a body_sink wants after a piece.
enum class body_flow : std::uint8_t {
  more,    ///< the next piece, as it arrives
  pause,   ///< nothing more until body_sink::resume(): the connection stops reading (back-pressure)
  answer,  ///< the answer is ready: on_end() is called now and the rest of the body is discarded
};

/// Receives one request's body as it arrives. Every call runs on the
/// connection's worker thread, one at a time, in this order: on_data() for
/// each piece, then on_end() (the body is complete, or on_data() said
/// body_flow::answer) or on_abort() (it never will be). The request the
/// handler saw stays valid until on_end() or on_abort() returns.
class body_sink {
 public:
  body_sink() noexcept;
  body_sink(const body_sink&) = delete;
  body_sink& operator=(const body_sink&) = delete;
  virtual ~body_sink();

  /// A piece of the body, de-chunked, never empty. The view points into the
  /// connection's read buffer: it stays valid until this call returns
  /// body_flow::more, or, after body_flow::pause, until resume() is called.
  virtual body_flow on_data(std::string_view piece) = 0;
  /// The answer: called once the body is complete (or when on_data() said
  /// body_flow::answer). It may be an asynchronous one (see responder).
  virtual response on_end() = 0;
  /// The body will never be complete: the client went away, the body
  /// timeout or minimum rate tripped, the body outgrew the route's limit, or
  /// its chunked framing is malformed (`why` says which; where the client can
  /// still hear it, the connection answers 400, 408 or 413 itself). Let go of
  /// what the body was going into (e.g. abort an upload_file).
  virtual void on_abort(std::error_code why) noexcept = 0;

  /// After on_data() returned body_flow::pause: the piece is done with, send
  /// the next. Thread-safe, callable from any thread; does nothing when the
  /// sink is not paused or its connection is gone.
  void resume() noexcept;

 private:
  friend struct detail::body_sink_access;
  std::shared_ptr<void> wake_;  // set by the connection while it feeds this sink
};

/// The response a streaming route's handler returns to take its body through
/// `sink` (returning any other response answers at once, before the body is
/// read: the rest of the body is discarded, or the connection closed).
/// Middleware after-hooks run on the answer on_end() gives.
response read_body(std::unique_ptr<body_sink> sink);

}  // namespace stet
