#pragma once
// One connection to Redis that keeps itself up: it connects, says when it is
// up and when it went down, and after a failure or a drop tries again after a
// delay that doubles up to a ceiling, with jitter. Everything runs on the
// io_context's one thread; nothing here blocks it except the name lookup of a
// host name (hiredis resolves synchronously; an IP literal needs none).
//
// A Redis that accepts bytes and never answers (paused, swapping, wedged)
// closes nothing, so the socket alone never tells. The link therefore counts
// as up only once Redis has answered on it (its probe, sent first), sends the
// probe again whenever it has heard nothing for a third of `reply_timeout`,
// and drops the connection, like a lost one, when nothing at all came for
// `reply_timeout`: pending replies fail, and it reconnects with the backoff.

#include "net/asio.hpp"
#include "pubsub/redis_url.hpp"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <vector>

struct redisAsyncContext;
struct redisReply;

namespace stet::detail {

class redis_link {
 public:
  struct settings {
    redis_address address;
    std::chrono::milliseconds reconnect_min{100};
    std::chrono::milliseconds reconnect_max{5000};
    /// Silence (not one byte from Redis) this long drops the connection; 0:
    /// never (the link is up as soon as it connects).
    std::chrono::milliseconds reply_timeout{3000};
    /// A command Redis answers on this connection, whatever its mode: sent
    /// first on each connection, then whenever it has been quiet.
    std::vector<std::string> probe{"PING"};
  };
  /// `up` runs once Redis has answered on a new connection, `down` after each
  /// loss of a link that was up; both on the io_context's thread.
  redis_link(asio::io_context& io, settings s, std::function<void()> up, std::function<void()> down);
  redis_link(const redis_link&) = delete;
  redis_link& operator=(const redis_link&) = delete;
  ~redis_link();

  /// Connects (now) and keeps reconnecting until close().
  void open();
  /// Disconnects at once (pending replies get a null reply) and stays down.
  void close() noexcept;
  bool up() const noexcept { return up_; }
  /// Connections dropped because Redis fell silent (any thread).
  std::uint64_t timeouts() const noexcept { return timeouts_.load(std::memory_order_relaxed); }

  /// Sends a command with a reply callback `fn(context, reply, privdata)`
  /// (hiredis's own form, reply null when the link dropped first). False when
  /// the link is down: then `fn` is never called.
  bool send(std::span<const std::string_view> args, void (*fn)(redisAsyncContext*, void*, void*), void* privdata);

 private:
  static void on_connect(const redisAsyncContext* context, int status);
  static void on_disconnect(const redisAsyncContext* context, int status);
  void lost() noexcept;
  void retry_later();
  void heard();
  void send_probe();
  void watch_silence();
  void silent() noexcept;
  bool answer_waiting() const noexcept;

  asio::io_context& io_;
  settings settings_;
  std::function<void()> up_hook_;
  std::function<void()> down_hook_;
  asio::steady_timer retry_;
  asio::steady_timer silence_;
  std::minstd_rand jitter_;
  redisAsyncContext* context_ = nullptr;
  std::chrono::steady_clock::time_point heard_at_{};  // the connect began, or Redis last answered
  std::atomic<std::uint64_t> timeouts_{0};
  unsigned failures_ = 0;   // since the last connection Redis answered on: the exponent of the delay
  bool connected_ = false;  // hiredis connected; up_ once Redis answered too
  bool up_ = false;
  bool closed_ = true;
};

}  // namespace stet::detail
