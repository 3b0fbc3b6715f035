#include "net/redis/redis_link.hpp"

#include "net/redis/hiredis_asio.hpp"

#include <hiredis/async.h>
#include <sys/ioctl.h>

#include <algorithm>
#include <utility>
#include <vector>

namespace stet::detail {

redis_link::redis_link(asio::io_context& io, settings s, std::function<void()> up, std::function<void()> down)
    : io_(io),
      settings_(std::move(s)),
      up_hook_(std::move(up)),
      down_hook_(std::move(down)),
      retry_(io),
      silence_(io),
      jitter_(std::random_device{}()) {}

redis_link::~redis_link() { close(); }

void redis_link::open() {
  closed_ = false;
  redisAsyncContext* c = redisAsyncConnect(settings_.address.host.c_str(), settings_.address.port);
  // A refused loopback connect can fail inside connect(2) already.
  if (c == nullptr || c->err != 0 || !attach_hiredis(c, io_, [this] { heard(); })) {
    if (c != nullptr) redisAsyncFree(c);
    retry_later();
    return;
  }
  c->data = this;
  context_ = c;
  redisAsyncSetConnectCallback(c, &redis_link::on_connect);
  redisAsyncSetDisconnectCallback(c, &redis_link::on_disconnect);
  // hiredis has no connect timeout: a connect nobody completes is silence too.
  heard_at_ = std::chrono::steady_clock::now();
  watch_silence();
}

void redis_link::close() noexcept {
  closed_ = true;
  retry_.cancel();
  silence_.cancel();
  connected_ = false;
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
  self->connected_ = true;
  self->send_probe();
  // A connect says only that the kernel accepted it (a paused Redis's
  // backlog does); the probe's answer says Redis is there.
  if (self->settings_.reply_timeout.count() <= 0) self->heard();
}

void redis_link::heard() {
  heard_at_ = std::chrono::steady_clock::now();
  if (!connected_ || up_) return;
  failures_ = 0;
  up_ = true;
  if (up_hook_) up_hook_();
}

void redis_link::send_probe() {
  if (context_ == nullptr) return;
  std::vector<const char*> argv;
  std::vector<std::size_t> lengths;
  for (const std::string& a : settings_.probe) {
    argv.push_back(a.data());
    lengths.push_back(a.size());
  }
  // No callback: the answer matters only as bytes that arrived (heard()).
  redisAsyncCommandArgv(context_, nullptr, nullptr, static_cast<int>(argv.size()), argv.data(), lengths.data());
}

void redis_link::watch_silence() {
  const auto timeout = settings_.reply_timeout;
  if (timeout.count() <= 0) return;
  const auto quiet = std::max(timeout / 3, std::chrono::milliseconds(1));
  silence_.expires_after(quiet);
  silence_.async_wait([this, timeout, quiet](const boost::system::error_code& ec) {
    if (ec || closed_ || context_ == nullptr) return;
    const auto since = std::chrono::steady_clock::now() - heard_at_;
    if (since >= timeout && !answer_waiting()) {
      silent();
      return;
    }
    if (connected_ && since >= quiet) send_probe();
    watch_silence();
  });
}

// Bytes the kernel holds for us are Redis's answer that this thread has not
// read yet (it was starved, not Redis silent): no reason to drop the link.
bool redis_link::answer_waiting() const noexcept {
  int bytes = 0;
  return context_ != nullptr && ::ioctl(context_->c.fd, FIONREAD, &bytes) == 0 && bytes > 0;
}

// From the timer, never inside a hiredis callback, so the context may be
// freed here: its pending replies get a null reply (lost publishes, failed
// replays), as on a drop.
void redis_link::silent() noexcept {
  timeouts_.fetch_add(1, std::memory_order_relaxed);
  connected_ = false;
  if (redisAsyncContext* c = std::exchange(context_, nullptr)) redisAsyncFree(c);
  lost();
  retry_later();
}

void redis_link::on_disconnect(const redisAsyncContext* context, int /*status*/) {
  auto* self = static_cast<redis_link*>(context->data);
  if (self == nullptr || self->context_ != context) return;  // close(), silent(): no reconnect from here
  self->context_ = nullptr;                                  // hiredis frees it after this callback
  self->connected_ = false;
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
