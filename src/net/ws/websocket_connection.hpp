#pragma once
// The I/O side of a WebSocket session: the transport the HTTP connection
// handed over after the 101, a read buffer taken from the worker's pool only
// while bytes are being read, gather writes of the session's queue (batched:
// everything queued while a read or a delivery is handled goes out in one
// write), the timer, and posts from other threads. The protocol is
// ws::session's (src/websocket/session.hpp).

#include <stet/endpoint.hpp>

#include "net/server/deadline_list.hpp"
#include "net/transport/transport.hpp"
#include "websocket/session.hpp"

#include <atomic>
#include <memory>
#include <string_view>

namespace stet::detail {

class worker;
class websocket_worker;
class websocket_mailbox;
struct websocket_upgrade;

/// Bytes the HTTP connection read past the upgrade request's head (the
/// client's first frames): [begin, end) of `buffer`, which travels with them.
/// They are never copied into a block of a fixed size: however large the
/// connection's buffer grew (a streamed body before the upgrade, a long head),
/// the session reads them where they lie.
struct read_ahead {
  std::unique_ptr<char[]> buffer;  ///< null when nothing was read ahead
  std::size_t capacity = 0;
  std::size_t begin = 0;
  std::size_t end = 0;
};

/// The hand-over: starts a WebSocket session on `w` (the calling thread is
/// its) over `stream`, whose 101 has been written, with the bytes read ahead.
void start_websocket(worker& w, std::unique_ptr<transport> stream, const endpoint& peer, websocket_upgrade& up,
                     read_ahead ahead);

class websocket_connection final : public ws::session,
                                   public deadline_target,
                                   public std::enable_shared_from_this<websocket_connection> {
 public:
  websocket_connection(websocket_worker& owner, std::unique_ptr<transport> stream, const endpoint& peer,
                       websocket_upgrade& up);
  ~websocket_connection() override;

  void start(read_ahead ahead);
  /// Writes what is queued, as far as the transport takes it now.
  void flush() noexcept;
  void on_timeout();
  // deadline_target: the session's own lists (websocket_worker) have one
  // kind each; a session is never evicted to make room for HTTP clients.
  void on_timeout(timeout_kind) override { on_timeout(); }
  bool evictable() noexcept override { return false; }
  void evict() noexcept override {}

  deadline_hook& deadline() noexcept { return deadline_; }
  std::size_t slot = 0;  ///< index in the worker's session list
  bool dirty = false;    ///< on the worker's flush list

  // websocket_core, any thread.
  std::shared_ptr<websocket_core> share() override { return shared_from_this(); }
  send_status post_send(std::string_view payload, message_kind kind) override;
  void post_close(std::uint16_t code, std::string_view reason) override;

 private:
  // ws::session's hooks.
  void output_queued() noexcept override;
  void end_now() noexcept override;
  void arm_timer(clock::duration d) noexcept override;
  void input_unblocked() noexcept override;

  void read_more();
  static std::span<char> read_buffer(void* self, bool speculative) noexcept;
  static void read_done(void* self, const boost::system::error_code& ec, std::size_t n);
  void on_read(const boost::system::error_code& ec, std::size_t n);
  void process_input();
  void release_block() noexcept;
  bool move_into_block(std::size_t wanted) noexcept;
  static void writable(void* self, const boost::system::error_code& ec, std::size_t);
  void finish_tcp();
  void release_transport() noexcept;

  websocket_worker& owner_;
  std::unique_ptr<transport> stream_;
  std::shared_ptr<websocket_mailbox> mailbox_;
  deadline_hook deadline_;

  // The read buffer, while bytes are unconsumed or a read is tried: one of
  // the worker's blocks, or the buffer the bytes read ahead came in (lent_),
  // kept only until what is left of them fits a block.
  char* block_ = nullptr;
  std::size_t capacity_ = ws::read_block_bytes;
  std::unique_ptr<char[]> lent_;
  std::size_t begin_ = 0;  // [begin_, end_): read, not consumed
  std::size_t end_ = 0;
  std::size_t wanted_ = 0;
  bool reading_ = false;
  bool waiting_writable_ = false;
  bool corked_ = false;  // a flush follows what runs now: queueing need not schedule one
  bool wrote_ = false;   // output went out since the last read completed
  bool lingering_ = false;
  bool resume_posted_ = false;
  std::atomic<bool> close_posted_{false};  // post_close() posts once
};

}  // namespace stet::detail
