#pragma once
/// @file
/// Server-sent events (`text/event-stream`): a handler answers with
/// stet::event_stream() and sends events through an event_channel, from any
/// thread, or subscribes the stream to topics that server::publish() and
/// WebSocket publishes reach too.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

namespace stet {

class request;
class response;

namespace detail {
class event_queue;  // src/events/event_queue.hpp
}  // namespace detail

/// One server-sent event. Views: copied when the event is sent.
struct event {
  std::string_view data;               ///< any text; CR, LF and CRLF split it into `data:` lines
  std::string_view id = {};            ///< `id:` (what the client resumes from); empty: none. No CR, LF or NUL
  std::string_view name = {};          ///< `event:`; empty: none (the client's "message"). No CR, LF or NUL
  std::chrono::milliseconds retry{0};  ///< `retry:` (the client's reconnection delay); 0: none
};

/// Appends `e` in its wire form (ending with the blank line that dispatches
/// it) to `out`. False, with nothing appended, when the id or the name holds
/// CR, LF or NUL: such a field would end early and the rest of the line would
/// become a field of its own.
/// @throws std::bad_alloc
bool append_event(std::string& out, const event& e);

/// How one stream behaves.
struct event_stream_options {
  /// A comment line goes out when nothing else has for this long, so that
  /// proxies keep the stream open and a departed client is noticed. 0: never.
  std::chrono::milliseconds heartbeat{15000};
  /// Events waiting to be written, at most, and their bytes. A client that
  /// reads slower than events come falls behind; past either bound its stream
  /// ends with a `retry:` hint instead of growing the server: the client
  /// reconnects and, on a topic, resumes from the last event it received
  /// (Last-Event-ID), so nothing is lost while the topic's history holds it.
  std::size_t max_queued_events = 512;
  /// Bytes of the events waiting, at most (see max_queued_events); one larger
  /// event still goes when nothing else waits.
  std::size_t max_queued_bytes = 512 * 1024;
  /// The `retry:` hint of a stream the server ends (a stop, a full queue, max_lifetime).
  std::chrono::milliseconds retry_hint{1000};
  /// The stream ends with the retry hint after this long; 0: never. Clients
  /// reconnect and resume (topics: Last-Event-ID), so long-lived streams
  /// spread again over the instances behind a balancer as its pool changes.
  std::chrono::milliseconds max_lifetime{0};
};

/// What event_channel::send() did.
enum class event_status : std::uint8_t {
  queued,    ///< waiting to be written (the stream is within its bounds)
  invalid,   ///< refused: the id or the name holds CR, LF or NUL
  closed,    ///< refused: the stream has ended (client gone, closed, over its bounds, server stopping)
  overflow,  ///< refused: the queue was full; the stream ends with a retry hint
};

/// A stream's handle. Copies share the stream; every member may be called
/// from any thread, and a channel kept after its stream ended reports closed.
class event_channel {
 public:
  /// Queues `e` (copied). See event_status.
  /// @throws std::bad_alloc
  event_status send(const event& e);
  /// Queues a comment line (`: text`; CR and LF become spaces).
  /// @throws std::bad_alloc
  event_status comment(std::string_view text);
  /// Every message published to `topic` (server::publish(), a WebSocket's
  /// publish(), POSTed messages alike) arrives as an event whose id is the
  /// topic's (from the bus). With `last_event_id` (the client's Last-Event-ID),
  /// the events after it come first, from the topic's history; when the
  /// history no longer reaches back that far, an event named `gap` (data: the
  /// id) says so before them. Binary WebSocket messages are not sent.
  /// @note Only inside the stream's on_open callback (the worker's thread).
  /// @throws std::bad_alloc, std::logic_error outside on_open
  void subscribe(std::string_view topic, std::string_view last_event_id = {});
  /// Ends the stream once what is queued is written.
  void close() noexcept;
  /// Whether the stream has ended or is ending.
  bool closed() const noexcept;

  /// Made by the stream for its on_open callback; copy that one to keep it.
  explicit event_channel(std::shared_ptr<detail::event_queue> q) noexcept : q_(std::move(q)) {}

 private:
  std::shared_ptr<detail::event_queue> q_;
};

/// The answer that opens a stream: `200`, `Content-Type: text/event-stream`,
/// `Cache-Control: no-store`, never compressed (each event leaves at once).
/// `on_open` runs on the worker's thread when the head is written; never for
/// HEAD, which gets the head alone. When the server stops, the stream gets a
/// `retry:` hint and ends, so clients reconnect (to another instance).
/// @throws std::bad_alloc
response event_stream(std::function<void(event_channel&)> on_open, event_stream_options options = {});

/// event_stream() of `topic`, resuming from the request's Last-Event-ID.
/// @throws std::bad_alloc
response topic_stream(const request& req, std::string_view topic, event_stream_options options = {});

/// Publishes `message` (text) to `topic` from a handler: what
/// server::publish() does, for code that runs on a worker's thread and has no
/// server at hand. Whether this process had subscribers of the topic.
/// @throws std::logic_error on a thread that is not a worker's; std::bad_alloc
bool publish(std::string_view topic, std::string_view message);

/// The request's Last-Event-ID header, or empty.
std::string_view last_event_id(const request& req) noexcept;

}  // namespace stet
