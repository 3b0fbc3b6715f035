#pragma once
// One connection to Redis that keeps itself up: it connects, says when it is
// up and when it went down, and after a failure or a drop tries again after a
// delay that doubles up to a ceiling, with jitter. Everything runs on the
// io_context's one thread; nothing here blocks it except the name lookup of a
// host name (hiredis resolves synchronously; an IP literal needs none).

#include "net/asio.hpp"
#include "pubsub/redis_url.hpp"

#include <chrono>
#include <cstdint>
#include <functional>
#include <random>
#include <span>
#include <string_view>

struct redisAsyncContext;
struct redisReply;

namespace stet::detail {

class redis_link {
 public:
  struct settings {
    redis_address address;
    std::chrono::milliseconds reconnect_min{100};
    std::chrono::milliseconds reconnect_max{5000};
  };
  /// `up` runs after each successful connect, `down` after each loss of a
  /// link that was up; both on the io_context's thread.
  redis_link(asio::io_context& io, settings s, std::function<void()> up, std::function<void()> down);
  redis_link(const redis_link&) = delete;
  redis_link& operator=(const redis_link&) = delete;
  ~redis_link();

  /// Connects (now) and keeps reconnecting until close().
  void open();
  /// Disconnects at once (pending replies get a null reply) and stays down.
  void close() noexcept;
  bool up() const noexcept { return up_; }

  /// Sends a command with a reply callback `fn(context, reply, privdata)`
  /// (hiredis's own form, reply null when the link dropped first). False when
  /// the link is down: then `fn` is never called.
  bool send(std::span<const std::string_view> args, void (*fn)(redisAsyncContext*, void*, void*), void* privdata);

 private:
  static void on_connect(const redisAsyncContext* context, int status);
  static void on_disconnect(const redisAsyncContext* context, int status);
  void lost() noexcept;
  void retry_later();

  asio::io_context& io_;
  settings settings_;
  std::function<void()> up_hook_;
  std::function<void()> down_hook_;
  asio::steady_timer retry_;
  std::minstd_rand jitter_;
  redisAsyncContext* context_ = nullptr;
  unsigned failures_ = 0;  // since the last successful connect: the exponent of the delay
  bool up_ = false;
  bool closed_ = true;
};

}  // namespace stet::detail
