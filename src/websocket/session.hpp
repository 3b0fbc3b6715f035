#pragma once
// One WebSocket connection's protocol side, after the 101: frames in through
// a message_reader, the route's callbacks, frames out through a send queue,
// the close handshake, pings and the idle rule, back-pressure, topics and
// permessage-deflate. It owns no socket and no thread: the transport side
// (src/net/ws/websocket_connection.*) feeds it bytes, writes its queue, runs its
// timer and tells it when the connection ended, through the hooks below.
//
// States: open (messages both ways) -> closing (our close frame is queued;
// the peer's answer is awaited, its messages ignored) -> finishing (no more
// frames: the queue is written, then the TCP connection ends) -> ended. A
// close frame from the peer, or a protocol failure, goes from open straight
// to finishing. on_close is reported once: when the peer's close arrives (or
// answers ours), when stet fails the connection, or, with 1006, when the
// connection ends without either.

#include <stet/detail/websocket_core.hpp>
#include "metrics/worker_counters.hpp"

#include "websocket/deflate_offer.hpp"
#include "websocket/deflate_pool.hpp"
#include "websocket/message_reader.hpp"
#include "websocket/send_queue.hpp"
#include "websocket/topic_table.hpp"

#include <atomic>
#include <chrono>
#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace stet::detail {
struct websocket_upgrade;
}

namespace stet::detail::ws {

/// A session's read buffer: taken from the worker's pool when bytes come,
/// given back when every byte is consumed. A single-frame message whose frame
/// fits is delivered where it lies in it.
inline constexpr std::size_t read_block_bytes = 32 * 1024;

/// What a session keeps of its message buffers between messages: its
/// assembly buffer up to this, and its send queue up to send_queue::retained_bytes.
inline constexpr std::size_t message_retain_bytes = 4 * 1024;
/// The most an idle session holds (held_bytes()) once a message has been
/// handled and its output written, whatever the message's size: with context
/// takeover, its own zlib streams come on top.
inline constexpr std::size_t idle_held_bytes = message_retain_bytes + send_queue::retained_bytes;
/// What the worker's scratch buffer for compressed output keeps after a message.
inline constexpr std::size_t scratch_retain_bytes = 64 * 1024;

/// What a session needs from the worker it lives on.
class session_env {
 public:
  virtual topic_table& topics() noexcept = 0;
  /// A topic here gained its first subscriber (the server's hub learns that this worker has some).
  virtual void topic_opened(std::string_view name) = 0;
  /// A topic here is about to lose its last subscriber.
  virtual void topic_closing(std::string_view name) noexcept = 0;
  /// Publishes `message` to `topic` (through the server's hub and bus): every
  /// subscriber on every worker receives it, those here at once when the bus
  /// delivers at once. Whether any worker has subscribers.
  virtual bool publish(std::string_view topic, std::string_view message, message_kind kind) = 0;
  virtual websocket_counters& counters() noexcept = 0;
  /// A buffer for compressed output, reused by every session of the worker.
  virtual std::string& scratch() noexcept = 0;
  /// Reports a callback's exception (server_options::error_reporter).
  virtual void report_error(std::string_view what) noexcept = 0;

 protected:
  ~session_env() = default;
};

class session : public websocket_core {
 public:
  using clock = std::chrono::steady_clock;

  session(websocket_upgrade& up, session_env& env, const endpoint& peer);
  session(const session&) = delete;
  session& operator=(const session&) = delete;
  virtual ~session();

  // Driven by the transport side.

  /// The 101 is written: runs on_open (sends queued there go out after it).
  void open();
  struct input_result {
    std::size_t consumed = 0;
    std::size_t wanted = 0;  ///< more bytes needed beyond the unconsumed ones (0: stopped for another reason)
  };
  /// Reads frames from `bytes` (the unconsumed input, contiguous, writable:
  /// payloads are unmasked in place) and runs the callbacks, until more bytes
  /// are needed or reading must stop (wants_input() false).
  input_result on_input(std::span<char> bytes);
  /// Whether reading should go on: false once nothing more is expected, and
  /// while the send queue is over max_backpressure (the peer then waits).
  bool wants_input() const noexcept;
  /// What to write.
  send_queue& output() noexcept { return out_; }
  /// Some output was written: on_drain, and input resumes under the bound.
  void on_output_written();
  /// No more frames will be queued: write the queue, then end the TCP connection.
  bool finishing() const noexcept { return state_ == state::finishing; }
  /// A delivery found the queue over the bound with close_on_backpressure_limit:
  /// terminate() once the delivery loop is over.
  bool terminate_pending() const noexcept { return terminate_pending_; }
  /// The timer armed through arm_timer() fired.
  void on_timer();
  /// The TCP connection ended (end of stream, an error, or end_now()): the
  /// close is reported (1006 unless it already was) and nothing more happens.
  void on_transport_end() noexcept;
  /// Queues a published frame (one subscriber's share of it).
  void deliver(const std::shared_ptr<const std::string>& frame) noexcept;
  /// Server stop: close with 1001.
  void drain();
  /// Bytes of buffer this session holds: the assembly buffer, the send
  /// queue's, and the zlib streams it owns or has borrowed (the read block is
  /// the connection's, the worker's scratch buffer and pools the worker's).
  std::size_t held_bytes() const noexcept;
  /// The route's options; the defaults once release_callbacks() has run.
  const websocket_options& options() const noexcept { return route_ ? route_->options() : ended_options(); }

  // websocket_core, on the owner thread.
  send_status send(std::string_view payload, message_kind kind) override;
  void close(std::uint16_t code, std::string_view reason) override;
  void terminate() noexcept override;
  bool subscribe(std::string_view topic) override;
  bool unsubscribe(std::string_view topic) noexcept override;
  bool is_subscribed(std::string_view topic) const noexcept override;
  bool publish(std::string_view topic, std::string_view message, message_kind kind) override;
  std::size_t buffered_amount() const noexcept override { return out_.size(); }
  const endpoint& remote_endpoint() const noexcept override { return peer_; }
  std::string_view protocol() const noexcept override { return protocol_; }
  bool compressed() const noexcept override { return deflate_; }
  void* user_data() noexcept override { return data_ ? data_->get() : nullptr; }
  bool is_open() const noexcept override { return open_.load(std::memory_order_acquire); }

 protected:
  // The transport side.

  /// Output was queued outside on_input()/open()/on_output_written(): write it soon.
  virtual void output_queued() noexcept = 0;
  /// Close the TCP connection now (dropping what is queued); then call on_transport_end().
  virtual void end_now() noexcept = 0;
  /// (Re)arms the session's one timer for `d` from now.
  virtual void arm_timer(clock::duration d) noexcept = 0;
  /// wants_input() turned true again (the queue fell back under the bound).
  virtual void input_unblocked() noexcept = 0;

  /// Whether the caller runs on the thread that owns this session.
  bool on_owner_thread() const noexcept { return std::this_thread::get_id() == owner_thread_; }
  bool ended() const noexcept { return state_ == state::ended; }
  /// After the end, outside any callback: drops the route (its callbacks)
  /// and the user data. A websocket_handle keeps this object alive, and the
  /// callbacks or the user data often hold handles (a chat room's members):
  /// kept, they would keep each other alive for ever.
  void release_callbacks() noexcept;

 private:
  enum class state : std::uint8_t { open, closing, finishing, ended };

  bool dispatch(const message_reader::result& r);
  void queue_frame(opcode op, std::string_view payload);
  bool queue_compressed(opcode op, std::string_view payload);
  void queue_control(std::string_view frame);
  void peer_closed(close_code code, std::string_view reason);
  void fail(close_code code);
  void report_close(std::uint16_t code, std::string_view reason) noexcept;
  void leave_topics() noexcept;
  void lend_inflater();
  void return_inflater() noexcept;
  void arm_idle() noexcept;
  static const websocket_options& ended_options() noexcept;
  template <class F>
  void guarded(F&& callback) noexcept;

  std::shared_ptr<const websocket_route_base> route_;
  std::unique_ptr<websocket_user_data> data_;
  session_env& env_;
  endpoint peer_;
  std::string_view protocol_;
  std::thread::id owner_thread_;
  message_reader reader_;
  send_queue out_;
  std::vector<topic_table::topic*> topics_;

  // permessage-deflate: the agreed parameters and, with context takeover,
  // this session's own streams; otherwise streams lent per message or read.
  deflate_params deflate_params_{};
  std::unique_ptr<deflater> deflater_;
  std::unique_ptr<inflater> inflater_;
  bool deflate_ = false;
  bool inflater_lent_ = false;

  state state_ = state::open;
  std::atomic<bool> open_{true};
  bool reported_ = false;
  bool over_bound_ = false;  // a send found or left the queue over max_backpressure: on_drain when written
  bool input_blocked_ = false;
  bool terminate_pending_ = false;
  bool heard_ = false;  // bytes arrived since the timer was last armed
  bool ping_outstanding_ = false;
};

}  // namespace stet::detail::ws
