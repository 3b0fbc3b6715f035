#pragma once
// Where other threads post work for one worker's WebSocket sessions: the
// hub's publications (one per publish and worker, shared by every subscriber
// there) and websocket_handle sends and closes. Bounded in entries and bytes,
// because a client can fill it: a publisher on another worker reads messages
// far faster than this worker can fan each one out to its subscribers, and
// unbounded the backlog grew by gigabytes in seconds. A post to a full
// mailbox is refused and counted; the message is then not delivered on this
// worker (as a subscriber over max_backpressure misses it). The worker runs
// the entries in slices, each followed by what else its loop has queued, so
// its HTTP clients never wait behind the whole backlog.

#include "metrics/worker_counters.hpp"
#include "net/asio.hpp"

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace stet::detail {

/// One delivery of a topic on its way to a worker: built once, shared by
/// every worker it goes to. The frame is for WebSocket subscribers, the event
/// text for event streams; each is null when no worker has such subscribers.
struct websocket_publication {
  std::string topic = {};
  std::shared_ptr<const std::string> frame = {};
  std::string id = {};  // the bus's
  std::shared_ptr<const std::string> event = {};
};

class websocket_mailbox : public std::enable_shared_from_this<websocket_mailbox> {
 public:
  struct limits {
    std::size_t messages = 4096;          ///< entries waiting, at most (at least 1 is used)
    std::size_t bytes = 8 * 1024 * 1024;  ///< their bytes (payload and bookkeeping); one larger entry fits when empty
  };
  enum class post_result : std::uint8_t { posted, full, closed };
  /// Runs one publication on the worker's thread.
  using deliver_fn = std::function<void(const websocket_publication&)>;

  /// What one entry costs beyond its payload: the entry, and a publication's
  /// own allocation (counted on every worker it goes to).
  static constexpr std::size_t entry_bytes = 128;
  /// Entries taken off the queue per slice of the worker's loop.
  static constexpr std::size_t slice_entries = 64;

  /// `counters` (the worker's) receives the drop count and the depth gauges
  /// and must outlive the mailbox's last post.
  websocket_mailbox(asio::io_context& io, limits l, websocket_counters& counters, deliver_fn deliver);
  websocket_mailbox(const websocket_mailbox&) = delete;
  websocket_mailbox& operator=(const websocket_mailbox&) = delete;

  /// Any thread. A publication for this worker's subscribers.
  /// @throws std::bad_alloc
  post_result post(const std::shared_ptr<const websocket_publication>& p);
  /// Any thread. `task` (carrying `payload_bytes`) to run on the worker.
  /// @throws std::bad_alloc
  post_result post(std::function<void()> task, std::size_t payload_bytes);
  /// Any thread. Not held to the limits: only for what each session posts at
  /// most once (its close), so that what the limits refuse never includes it.
  /// @throws std::bad_alloc
  post_result post_unbounded(std::function<void()> task);

  /// On the worker's thread, before its loop goes away: later posts are
  /// refused, entries not yet run are dropped without running.
  void close() noexcept;

  /// Entries waiting, held to the limits (any thread).
  std::size_t size() const;

 private:
  struct entry {
    std::shared_ptr<const websocket_publication> publication;
    std::function<void()> task;
    std::size_t bytes = 0;  // 0: not held to the limits
  };

  post_result push(entry&& e);
  void run();
  void update_gauges() noexcept;

  mutable std::mutex mutex_;
  asio::io_context* io_;
  const limits limits_;
  websocket_counters& counters_;
  const deliver_fn deliver_;
  std::deque<entry> queue_;
  std::size_t messages_ = 0;  // counted entries in queue_
  std::size_t bytes_ = 0;
  bool run_posted_ = false;
  std::vector<entry> running_;  // the worker's slice; its thread only
};

}  // namespace stet::detail
