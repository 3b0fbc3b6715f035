#pragma once
// One client connection's HTTP/1.1 state machine: read, parse, dispatch, queue
// the answer, write; timeouts, pipelining, 100-continue, streamed bodies,
// upgrade, lingering close. The jobs around it live in rooms of their own:
// the request is assembled in request_assembly, the streamed answer's pieces
// come from stream_pump, and what is recorded about each exchange (timings,
// route counters, Server-Timing, the access log) is exchange_observer's. It
// talks to its byte stream only through a transport, and it holds its buffers
// (an exchange, from the worker's pool) only while an exchange is in progress:
// an idle keep-alive connection is this object and its socket.

#include <stet/endpoint.hpp>
#include <stet/metrics.hpp>
#include <stet/request.hpp>
#include <stet/response.hpp>

#include "events/stream_parking.hpp"
#include "net/http1/exchange.hpp"
#include "net/http1/exchange_observer.hpp"
#include "net/http1/request_assembly.hpp"
#include "net/server/deadline_list.hpp"
#include "net/transport/transport.hpp"
#include "route/outcome.hpp"
#include "route/pending_response.hpp"

#include <memory>
#include <optional>
#include <string>
#include <system_error>

namespace stet::detail {

class worker;
struct websocket_upgrade;

class connection final : public std::enable_shared_from_this<connection>,
                         public deadline_target,
                         public stream_parking {  // connection_park.cpp
 public:
  connection(worker& owner, std::unique_ptr<transport> stream, const endpoint& peer);
  connection(const connection&) = delete;
  connection& operator=(const connection&) = delete;
  ~connection();

  void start();
  /// Graceful stop: close now if idle, otherwise after the current response.
  void drain();
  void close() noexcept;
  void on_timeout(timeout_kind kind) override;
  bool evictable() noexcept override;
  void evict() noexcept override;
  const endpoint& peer() const noexcept { return peer_; }
  /// Counted against max_connections_per_address (released when it closes).
  bool address_counted() const noexcept { return address_counted_; }
  void set_address_counted() noexcept { address_counted_ = true; }
  /// The connection's own scheme, before any proxy says otherwise.
  std::string_view scheme() const noexcept { return stream_->tls() != nullptr ? "https" : "http"; }

  // stream_parking (connection_park.cpp): a streamed answer fed from
  // elsewhere (server-sent events) waits here instead of being asked again.
  std::function<void()> park(std::chrono::milliseconds at_most) override;
  bool stopping() const noexcept override { return draining_; }

 private:
  enum class phase : std::uint8_t { reading, writing, awaiting, lingering, closed };

  // The exchange: taken when bytes are ready, given back when nothing is left.
  exchange& take_exchange();
  /// `clean`: between messages of a keep-alive connection, nothing buffered,
  /// open or queued, the stream done (no reset needed).
  void give_back_exchange(bool clean = false) noexcept;
  bool in_message() const noexcept { return x_ && x_->parser.in_message(); }

  void read_more();
  static std::span<char> read_buffer(void* self, bool speculative) noexcept;
  static std::span<char> discard_buffer(void* self, bool speculative) noexcept;
  static void read_done(void* self, const boost::system::error_code& ec, std::size_t n);
  void on_read(const boost::system::error_code& ec, std::size_t n);
  void make_room();
  void process();
  void wait_for_input();
  bool on_head_complete();
  /// The request is about to go to its handler: counted, its keep-alive decided.
  void begin_dispatch();
  // The body path (connection_body.cpp): per-route limits, 100-continue,
  // streamed bodies, early answers, the minimum rate.
  bool start_stream(bool awaits_100);
  void hold_head_for_stream();
  bool deliver_piece();
  std::optional<body_flow> offer_piece(std::string_view piece);
  void feed_whole_body(std::shared_ptr<pending_response> sink);
  void end_stream(bool complete);
  void abort_stream(std::error_code why) noexcept;
  void on_body_resumed();
  bool discard_rest_of_body() noexcept;
  bool body_too_slow(std::size_t received, steady::time_point now) noexcept;
  void restart_rate_window(exchange& x) const noexcept;
  void on_message_complete();
  /// Queues an answer (or an accepted upgrade's 101) to `req`, then lets the request go.
  void answer(dispatch_outcome&& o, request& req);
  void answer(response&& r, request& req) { answer(dispatch_outcome::from(std::move(r)), req); }
  void await_answer();
  static void wake(std::shared_ptr<void> self) noexcept;
  static void peer_stirred(void* self, const boost::system::error_code& ec, std::size_t);
  void on_answer();
  void abandon_answer();
  request_origin origin() const noexcept { return {peer_, owner_.trust(), scheme(), stream_->tls()}; }
  void queue_response(response&& r, bool head_request, bool close, bool no_content_length = false);
  void queue_stream(response&& r, bool head_request, bool close);
  void fail(stet::error e);

  void flush();
  void write_next();
  static void writable(void* self, const boost::system::error_code& ec, std::size_t);
  void on_written();
  void pump();
  void wait_parked();
  void unpark(std::uint32_t generation);
  static void parked_peer_stirred(void* self, const boost::system::error_code& ec, std::size_t);
  void after_write();
  void hand_over();
  void linger();
  static void discarded(void* self, const boost::system::error_code& ec, std::size_t n);

  worker& owner_;
  std::unique_ptr<transport> stream_;
  endpoint peer_;
  // In the padding after peer_ (20 bytes): an idle connection's size is a
  // stated budget (IdleBudget; docs/architecture.md).
  phase phase_ = phase::reading;
  bool address_counted_ = false;
  exchange_observer observer_;
  deadline_hook deadline_;

  std::unique_ptr<exchange> x_;  // null while idle
  // The exchange a handler that timed out may still be reading: kept, never
  // given back (its request lives in it), freed with the connection.
  std::unique_ptr<exchange> lent_;
  // The asynchronous answer awaited for the current request, if any. While it
  // is, nothing is read or parsed: the request's views must stay put.
  std::shared_ptr<pending_response> pending_;
  // A streaming route's body in progress: its sink, and the after-hooks its
  // answer gets (stet::read_body()).
  std::shared_ptr<pending_response> upload_;
  // An accepted WebSocket upgrade: once the 101 (queued behind any earlier
  // pipelined answers) is written, the transport goes to a session.
  std::shared_ptr<websocket_upgrade> upgrade_;

  std::size_t served_ = 0;
  bool answered_ = false;   // a response went out since the last read completed
  bool keep_alive_ = true;  // of the request being answered
  bool stream_chunked_ = true;
  bool writing_piece_ = false;  // the write in progress is a streamed piece, not a batch of answers
  bool close_after_write_ = false;
  bool draining_ = false;
  bool body_paused_ = false;           // upload_'s sink paused: nothing read until it resumes
  bool settle_body_ = false;           // parse once more after a piece, even with nothing buffered
  bool answered_early_ = false;        // the message's answer went out before its body: its end dispatches nothing
  bool head_assembled_ = false;        // the open message's request was assembled (and matched) at its head's end
  bool watching_peer_ = false;         // while awaiting: told if the client leaves
  bool parked_ = false;                // the stream's producer waits for a wake (park())
  std::uint32_t park_generation_ = 0;  // a wake or timer of an earlier park does nothing
  std::unique_ptr<asio::steady_timer> park_timer_;  // made on the first park with a limit
};

}  // namespace stet::detail
