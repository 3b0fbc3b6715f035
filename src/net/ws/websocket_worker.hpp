#pragma once
// A worker's WebSocket and topic state, made the first time one of its
// connections is upgraded or an event stream of it subscribes to a topic: the
// sessions it runs, their read buffers (a pool: a session holds one only while
// bytes are being read), their timers, the batch of sessions whose output
// waits to be written, its topic tables (WebSocket sessions, event streams),
// and the mailbox other threads post to.

#include "metrics/worker_counters.hpp"

#include "net/asio.hpp"
#include "net/server/deadline_list.hpp"
#include "net/ws/event_members.hpp"
#include "net/ws/websocket_mailbox.hpp"
#include "websocket/session.hpp"
#include "websocket/topic_table.hpp"

#include <cstddef>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace stet::detail {

class worker;
class topic_hub;
class websocket_connection;

class websocket_worker final : public ws::session_env {
 public:
  websocket_worker(worker& owner, topic_hub* hub);
  websocket_worker(const websocket_worker&) = delete;
  websocket_worker& operator=(const websocket_worker&) = delete;
  ~websocket_worker();

  worker& owner() noexcept { return owner_; }
  asio::io_context& io() noexcept;
  const std::shared_ptr<websocket_mailbox>& mailbox() const noexcept { return mailbox_; }

  /// A session starts / ended (the worker then counts its connection closed).
  void adopt(std::shared_ptr<websocket_connection> c);
  void ended(websocket_connection& c) noexcept;
  bool empty() const noexcept { return sessions_.empty(); }
  std::size_t size() const noexcept { return sessions_.size(); }
  /// Server stop: every session closes with 1001.
  void drain();
  /// The drain timeout passed: every session's TCP connection closes now.
  void terminate_all() noexcept;

  /// `c` has output to write: written once the current handler returns,
  /// together with every other session's (one flush task per batch).
  void want_flush(websocket_connection& c) noexcept;

  /// Arms `hook` (whose target is a websocket_connection) for `d` from now,
  /// on the worker's deadline set (one timer for HTTP and WebSocket alike).
  void arm(deadline_hook& hook, steady::duration d) noexcept;

  /// A read buffer of ws::read_block_bytes, and its return.
  char* take_block();
  void give_block(char* block) noexcept;
  /// Where lingering sessions read what they throw away.
  std::span<char> discard_buffer() noexcept;

  /// Runs on this thread: a topic's delivery to its subscribers here (the
  /// frame to WebSocket sessions, the event text to event streams).
  void deliver(const websocket_publication& p) noexcept;
  /// An event stream's subscription `index` of `topic` / all of `q`'s end.
  /// @throws std::bad_alloc
  void subscribe_events(std::string_view topic, const std::shared_ptr<event_queue>& q, std::size_t index);
  void unsubscribe_events(event_queue& q) noexcept;
  /// From another thread (the hub): posts a delivery here; refused (and
  /// counted) when the mailbox is full.
  websocket_mailbox::post_result post_delivery(const std::shared_ptr<const websocket_publication>& p);

  // ws::session_env
  ws::topic_table& topics() noexcept override { return topics_; }
  void topic_opened(std::string_view name) override;
  void topic_closing(std::string_view name) noexcept override;
  bool publish(std::string_view topic, std::string_view message, message_kind kind) override;
  websocket_counters& counters() noexcept override;
  std::string& scratch() noexcept override { return scratch_; }
  void report_error(std::string_view what) noexcept override;

  static constexpr std::size_t retained_blocks = 32;

 private:
  void flush_dirty() noexcept;

  worker& owner_;
  topic_hub* hub_;
  std::size_t hub_slot_ = 0;
  std::shared_ptr<websocket_mailbox> mailbox_;
  std::vector<std::shared_ptr<websocket_connection>> sessions_;  // each knows its index
  std::vector<std::shared_ptr<websocket_connection>> dirty_;
  std::vector<std::shared_ptr<websocket_connection>> flushing_;
  bool flush_posted_ = false;
  std::vector<char*> blocks_;
  std::unique_ptr<char[]> discard_;
  ws::topic_table topics_;
  event_members events_;
  std::string scratch_;
};

}  // namespace stet::detail
