#include "net/redis/redis_link.hpp"

#include "net/redis/hiredis_asio.hpp"

#include <hiredis/async.h>

#include <algorithm>
#include <vector>

namespace stet::detail {

redis_link::redis_link(asio::io_context& io, settings s, std::function<void()> up, std::function<void()> down)
    : io_(io),
      settings_(std::move(s)),
      up_hook_(std::move(up)),
      down_hook_(std::move(down)),
      retry_(io),
      jitter_(std::random_device{}()) {}

redis_link::~redis_link() { close(); }

void redis_link::open() {
  closed_ = false;
  redisAsyncContext* c = redisAsyncConnect(settings_.address.host.c_str(), settings_.address.port);
  // A refused loopback connect can fail inside connect(2) already.
  if (c == nullptr || c->err != 0 || !attach_hiredis(c, io_)) {
    if (c != nullptr) redisAsyncFree(c);
    retry_later();
    return;
  }
  c->data = this;
  context_ = c;
  redisAsyncSetConnectCallback(c, &redis_link::on_connect);
  redisAsyncSetDisconnectCallback(c, &redis_link::on_disconnect);
}

void redis_link::close() noexcept {
  closed_ = true;
  retry_.cancel();
  if (redisAsyncContext* c = std::exchange(context_, nullptr)) {
    // Called from our own code, never from inside a hiredis callback, where
    // freeing is not allowed. The disconnect callback sees context_ cleared.
    redisAsyncFree(c);
  }
  up_ = false;
}

bool redis_link::send(std::span<const std::string_view> args, void (*fn)(redisAsyncContext*, void*, void*),
                      void* privdata) {
  if (!up_ || context_ == nullptr) return false;
  std::vector<const char*> argv;
  std::vector<std::size_t> lengths;
  argv.reserve(args.size());
  lengths.reserve(args.size());
  for (const std::string_view a : args) {
    argv.push_back(a.data());
    lengths.push_back(a.size());
  }
  return redisAsyncCommandArgv(context_, fn, privdata, static_cast<int>(args.size()), argv.data(), lengths.data()) ==
         REDIS_OK;
}

void redis_link::on_connect(const redisAsyncContext* context, int status) {
  auto* self = static_cast<redis_link*>(context->data);
  if (self == nullptr || self->context_ != context) return;
  if (status != REDIS_OK) {
    // hiredis frees a context whose connect failed, without a disconnect callback.
    self->context_ = nullptr;
    self->retry_later();
    return;
  }
  self->failures_ = 0;
  self->up_ = true;
  if (self->up_hook_) self->up_hook_();
}

void redis_link::on_disconnect(const redisAsyncContext* context, int /*status*/) {
  auto* self = static_cast<redis_link*>(context->data);
  if (self == nullptr || self->context_ != context) return;  // close(): no reconnect
  self->context_ = nullptr;                                  // hiredis frees it after this callback
  self->lost();
  self->retry_later();
}

void redis_link::lost() noexcept {
  if (!std::exchange(up_, false)) return;
  if (down_hook_) down_hook_();
}

void redis_link::retry_later() {
  if (closed_) return;
  const auto ceiling = settings_.reconnect_max.count();
  const auto base = std::min<long long>(ceiling, settings_.reconnect_min.count() << std::min(failures_, 20u));
  ++failures_;
  std::uniform_int_distribution<long long> draw(base / 2, std::max<long long>(base, 1));
  retry_.expires_after(std::chrono::milliseconds(draw(jitter_)));
  retry_.async_wait([this](const boost::system::error_code& ec) {
    if (!ec && !closed_) open();
  });
}

}  // namespace stet::detail
