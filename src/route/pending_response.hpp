#pragma once
// The meeting point of an asynchronous handler and whoever waits for its answer
// (a connection, or router::handle() in-process). The handler's thread fills
// it once; the waiter is told through a waker that posts to its own thread.
// A handler task's slot (coro_root.hpp) also learns when the waiter gives up.

#include <stet/body.hpp>
#include <stet/detail/middleware_layer.hpp>
#include <stet/response.hpp>

#include "response/response_access.hpp"

#include <atomic>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string_view>
#include <vector>

namespace stet::detail {

using error_reporter = std::function<void(std::string_view)>;

class pending_response {
 public:
  /// Called once, on the sending thread, with the waiter that on_ready() was
  /// given, when the answer is there; must only hand over to the waiter's own
  /// thread (e.g. asio::post). A plain function and a pointer, so that waiting
  /// allocates nothing.
  using waker = void (*)(std::shared_ptr<void> waiter) noexcept;

  pending_response() = default;
  pending_response(const pending_response&) = delete;
  pending_response& operator=(const pending_response&) = delete;
  virtual ~pending_response() = default;

  // The handler's side.

  /// First call wins; false when already answered or nobody waits any more.
  bool complete(response r);
  /// The handler failed with `e`: the answer is rendered by finish_pending()
  /// (500, or 503 for offload_rejected), which also reports it.
  bool fail(std::exception_ptr e);
  /// The responder died without sending: the answer is a 500, reported by
  /// finish_pending() on the waiter's thread (dispatch's reporter is known there).
  void drop();
  bool abandoned() const noexcept { return abandoned_.load(std::memory_order_acquire); }

  // The waiter's side.

  /// Registers `wake`, to be called with `waiter`; false (and both unused)
  /// when the answer is already there, to be taken at once.
  bool on_ready(waker wake, std::shared_ptr<void> waiter);
  /// The answer; call once it is there.
  response take();
  /// Whether the answer is the 500 of a dropped responder (valid after take()).
  bool dropped() const noexcept { return dropped_; }
  /// The exception the handler failed with, if it did (valid after take()).
  const std::exception_ptr& failure() const noexcept { return failure_; }
  /// The answer when it is already there (a handler that sent before returning).
  std::optional<response> take_if_ready();
  /// Whether the answer is there.
  bool ready();
  /// Nobody will take the answer: the waiter given to on_ready() is let go
  /// (the caller must hold its own reference to it), sends are refused, and
  /// on_abandoned() runs.
  void abandon();
  /// Holds `keep` (what the handler's request lives in) until the handler
  /// sends or drops its responder, which may free it on the handler's thread;
  /// frees it at once if that already happened.
  void keep_until_settled(std::shared_ptr<void> keep);

  // Filled by dispatch before the handler can answer: the after-hooks of the
  // middleware layers it entered (run innermost first once the answer is
  // there) and where a failure is reported.
  std::vector<const middleware_layer*> afters;
  std::shared_ptr<const error_reporter> report;
  bool compress = true;  // the route's route_options::compress, applied to the answer
  // A streaming route's sink (stet::read_body()): the answer is its on_end().
  std::unique_ptr<body_sink> body;
  // With `body`, a coroutine handler's own answer slot (stet::body_stream()):
  // after the sink's on_abort(), its frame may still hold the request.
  std::shared_ptr<pending_response> handler_slot;

  /// Whether the handler behind this slot may still read its request: a
  /// cancelled coroutine whose frame goes only when an offloaded function returns.
  virtual bool holds_request() const noexcept { return false; }

 protected:
  /// On the waiter's thread, from abandon(): the answer will not be taken.
  virtual void on_abandoned() noexcept {}

 private:
  bool settle_locked(std::unique_lock<std::mutex>& lock, response r);

  std::mutex mutex_;
  std::optional<response> answer_;
  bool settled_ = false;  // answered or dropped; later sends are discarded
  bool dropped_ = false;
  std::exception_ptr failure_;
  waker wake_ = nullptr;
  std::shared_ptr<void> waiter_;
  std::shared_ptr<void> keep_;
  std::atomic<bool> abandoned_{false};
};

/// Runs the after-hooks dispatch left for `state` on its answer, innermost
/// first; a hook that throws turns the answer into a 500.
response finish_pending(pending_response& state, request& req);

/// The answer to a handler that failed with `e`: 503 with Retry-After for
/// offload_rejected, otherwise 500 after reporting the exception's text.
response failure_answer(const std::exception_ptr& e, const error_reporter* report, const request& req);

/// For in-process dispatch (router::handle()): blocks the calling thread,
/// turning its in-process loop (src/route/dispatch.cpp), until `pending` is
/// answered.
void wait_in_process(pending_response& pending);

/// For in-process dispatch (router::handle()): feeds `req.body()` to the
/// sink of `state` in one piece and returns its answer, after-hooks applied.
response feed_whole_body(pending_response& state, request& req);

/// Reports a failure through `report`, if there is one (the library never
/// writes to stderr by itself). Never throws.
void report_failure(const error_reporter* report, std::string_view path, std::string_view what) noexcept;

}  // namespace stet::detail
