#pragma once
/// @file
/// stet::responder: how an asynchronous handler answers later.

#include <stet/response.hpp>

#include <memory>

namespace stet {

namespace detail {
class pending_response;
struct responder_access;
}  // namespace detail

/// The answer slot of an asynchronous handler, `void(request&, responder, A...)`.
/// The handler returns at once; whoever finishes the work calls send() once,
/// from any thread. Until then the connection keeps the request (its views,
/// arena and body) untouched and answers later pipelined requests only after
/// this one, in order. The synchronous path pays nothing for this: an
/// asynchronous handler that sends before returning is answered like a
/// synchronous one.
///
/// If nobody sends within server_options::handler_timeout, the client gets 503
/// and the connection closes; abandoned() turns true and a late send() is
/// discarded. The request stays valid until send() or the responder's
/// destruction even then (the connection waits for its memory), so a handler
/// never reads freed memory. A responder destroyed without send() answers 500.
class responder {
 public:
  /// Takes over `other`'s answer; `other` is then spent.
  responder(responder&&) noexcept = default;
  /// Answers 500 for a pending answer of this one first (as the destructor would), then takes over `other`'s.
  responder& operator=(responder&& other) noexcept;
  responder(const responder&) = delete;
  responder& operator=(const responder&) = delete;
  ~responder();

  /// Hands `r` to the connection (thread-safe; the first call counts). Returns
  /// false when nobody waits any more (timed out, client gone, server stopped).
  bool send(response r);
  /// True once the answer is no longer wanted: stop the work early.
  bool abandoned() const noexcept;

 private:
  friend struct detail::responder_access;  // the router makes one per asynchronous handler
  explicit responder(std::shared_ptr<detail::pending_response> state) noexcept;

  std::shared_ptr<detail::pending_response> state_;
};

}  // namespace stet
