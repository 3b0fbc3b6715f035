// The Redis bus (declared in pubsub/redis_bus.hpp): a thread with its own
// io_context and two connections, one for commands (publish, replay) and one
// subscribed to the channels of the topics this process watches. Workers only
// post to that thread, and only up to the bounds, so Redis being slow or gone
// never holds a worker.

#include "pubsub/redis_bus.hpp"

#include "net/asio.hpp"
#include "net/redis/redis_link.hpp"
#include "net/redis/redis_replies.hpp"
#include "net/redis/redis_scripts.hpp"
#include "pubsub/stream_id.hpp"

#include <hiredis/hiredis.h>
#include <openssl/sha.h>

#include <fmt/format.h>
#include <array>
#include <atomic>
#include <map>
#include <set>
#include <thread>
#include <utility>
#include <vector>

namespace stet::detail {

namespace {

std::string sha1_hex(std::string_view script) {
  std::array<unsigned char, SHA_DIGEST_LENGTH> digest{};
  SHA1(reinterpret_cast<const unsigned char*>(script.data()), script.size(), digest.data());
  std::string hex;
  for (const unsigned char b : digest) hex += fmt::format("{:02x}", b);
  return hex;
}

class redis_bus final : public bus {
 public:
  explicit redis_bus(redis_bus_options o);
  redis_bus(const redis_bus&) = delete;
  redis_bus& operator=(const redis_bus&) = delete;
  ~redis_bus() override { stop(); }

  void start(sink deliver) override;
  void stop() noexcept override;
  void watch(std::string_view topic) override;
  void unwatch(std::string_view topic) noexcept override;
  bool publish(std::string_view topic, std::string_view data) override;
  void replay(std::string_view topic, std::string_view last_id, std::size_t limit, replay_done done) override;
  bus_stats stats() const noexcept override;

 private:
  struct replay_call {
    redis_bus* bus;
    stream_id last;
    replay_done done;
  };
  struct waiting_replay {
    stream_id last;
    std::size_t limit;
    replay_done done;
  };
  // A topic whose SUBSCRIBE Redis has not confirmed yet, and the replays that
  // wait for it (see send_replay()).
  struct confirming {
    unsigned subscribes = 0;
    std::vector<waiting_replay> replays;
  };

  // The loop thread's side.
  void command_up();
  void subscriber_up();
  void link_down();
  void subscriber_down();
  void fail_waiting_replays() noexcept;
  void subscription_confirmed(std::string_view topic);
  void send_publish(const std::string& topic, const std::string& data);
  void send_subscription(std::string_view verb, std::string_view topic);
  void send_replay(const std::string& topic, stream_id last, std::size_t limit, replay_done& done);
  static void on_published(redisAsyncContext*, void* reply, void* self);
  static void on_script_loaded(redisAsyncContext*, void*, void*) {}
  static void on_message(redisAsyncContext*, void* reply, void* self);
  static void on_replayed(redisAsyncContext*, void* reply, void* call);

  redis_bus_options options_;
  const std::string publish_sha_ = sha1_hex(redis_scripts::publish);
  const std::string replay_sha_ = sha1_hex(redis_scripts::replay);
  const std::string stream_prefix_ = options_.prefix + "s:";
  const std::string channel_prefix_ = options_.prefix + "c:";
  const std::string anchor_channel_ = options_.prefix + "bus";  // outside channel_prefix_: no topic's
  const std::string history_ = std::to_string(options_.history);
  const std::string history_ttl_ = std::to_string(options_.history_ttl.count());

  asio::io_context io_{1};
  asio::executor_work_guard<asio::io_context::executor_type> work_ = asio::make_work_guard(io_);
  redis_link commands_;
  redis_link subscriber_;
  std::set<std::string, std::less<>> watched_;                 // loop thread only
  std::map<std::string, confirming, std::less<>> confirming_;  // loop thread only
  sink sink_;
  std::thread thread_;

  std::atomic<std::size_t> outstanding_{0};  // publishes accepted, not yet answered
  std::atomic<std::size_t> replays_{0};      // replays posted, not yet answered
  std::atomic<bool> connected_{false};
  std::atomic<bool> commands_ever_up_{false};
  std::atomic<bool> subscriber_ever_up_{false};
  std::atomic<std::uint64_t> published_{0};
  std::atomic<std::uint64_t> delivered_{0};
  std::atomic<std::uint64_t> refused_{0};
  std::atomic<std::uint64_t> lost_{0};
  std::atomic<std::uint64_t> reconnects_{0};
};

redis_link::settings link_settings(const redis_bus_options& o, std::vector<std::string> probe) {
  return {o.address, o.reconnect_min, o.reconnect_max, o.reply_timeout, std::move(probe)};
}

redis_bus::redis_bus(redis_bus_options o)
    : options_(std::move(o)),
      commands_(
          io_, link_settings(options_, {"PING"}), [this] { command_up(); }, [this] { link_down(); }),
      // A subscribed connection answers only (P)SUBSCRIBE, (P)UNSUBSCRIBE and
      // PING, and hiredis 0.14 never hands a PING's answer back there; the
      // anchor's SUBSCRIBE again is answered on any Redis and changes nothing.
      subscriber_(
          io_, link_settings(options_, {"SUBSCRIBE", anchor_channel_}), [this] { subscriber_up(); },
          [this] { subscriber_down(); }) {}

void redis_bus::start(sink deliver) {
  sink_ = std::move(deliver);
  asio::post(io_, [this] {
    commands_.open();
    subscriber_.open();
  });
  thread_ = std::thread([this] { io_.run(); });
}

void redis_bus::stop() noexcept {
  if (!thread_.joinable()) return;
  asio::post(io_, [this] {
    // Freeing the contexts answers every pending reply with null (counted as
    // lost, replays failed) before the loop ends.
    commands_.close();
    subscriber_.close();
    fail_waiting_replays();
    connected_ = false;
    work_.reset();
    io_.stop();
  });
  thread_.join();
}

void redis_bus::command_up() {
  // Loaded before any EVALSHA on this connection, and Redis answers in order,
  // so the first publish after a (re)connect finds the script.
  for (const std::string_view script : {redis_scripts::publish, redis_scripts::replay}) {
    const std::array<std::string_view, 3> args{"SCRIPT", "LOAD", script};
    commands_.send(args, &redis_bus::on_script_loaded, nullptr);
  }
  if (commands_ever_up_.exchange(true)) ++reconnects_;
  connected_ = subscriber_.up();
}

void redis_bus::subscriber_up() {
  // hiredis 0.14 (Debian 12) leaves subscriber mode when an UNSUBSCRIBE
  // answer says no channel is left, even with a SUBSCRIBE already sent behind
  // it, and then drops that channel's messages. One channel of the bus's own,
  // subscribed first (the link's probe, answered before this runs) and never
  // left, keeps the count above zero.
  // A new connection has no subscriptions: every watched topic again.
  for (const std::string& topic : watched_) send_subscription("SUBSCRIBE", topic);
  if (subscriber_ever_up_.exchange(true)) ++reconnects_;
  connected_ = commands_.up();
}

void redis_bus::link_down() { connected_ = false; }

void redis_bus::subscriber_down() {
  link_down();
  // Their subscriptions went with the connection; a reconnect subscribes
  // again, but a client should not wait for that: the replay fails now (the
  // stream says so with a gap event) and the client may resume later.
  fail_waiting_replays();
}

void redis_bus::fail_waiting_replays() noexcept {
  for (auto& [topic, c] : std::exchange(confirming_, {})) {
    for (waiting_replay& w : c.replays) {
      --replays_;
      w.done(bus_replay{{}, true, true});
    }
  }
}

void redis_bus::subscription_confirmed(std::string_view topic) {
  const auto it = confirming_.find(topic);
  if (it == confirming_.end() || --it->second.subscribes > 0) return;
  std::vector<waiting_replay> replays = std::move(it->second.replays);
  const std::string t = it->first;
  confirming_.erase(it);
  for (waiting_replay& w : replays) send_replay(t, w.last, w.limit, w.done);
}

void redis_bus::watch(std::string_view topic) {
  asio::post(io_, [this, t = std::string(topic)]() mutable {
    if (!watched_.insert(t).second) return;
    if (subscriber_.up()) send_subscription("SUBSCRIBE", t);
  });
}

void redis_bus::unwatch(std::string_view topic) noexcept {
  try {
    asio::post(io_, [this, t = std::string(topic)] {
      const auto it = watched_.find(t);
      if (it == watched_.end()) return;
      watched_.erase(it);
      if (subscriber_.up()) send_subscription("UNSUBSCRIBE", t);
    });
  } catch (...) {
    // Out of memory: the topic stays subscribed, which costs deliveries
    // nobody reads but loses nothing.
  }
}

void redis_bus::send_subscription(std::string_view verb, std::string_view topic) {
  const std::string channel = channel_prefix_ + std::string(topic);
  const std::array<std::string_view, 2> args{verb, channel};
  // One callback for every channel: hiredis calls it for each message pushed.
  if (!subscriber_.send(args, &redis_bus::on_message, this)) return;
  if (verb == "SUBSCRIBE") {
    ++confirming_[std::string(topic)].subscribes;
  } else if (const auto it = confirming_.find(topic); it != confirming_.end()) {
    // Nobody here reads the topic any more: its replays need not wait.
    it->second.subscribes = 1;
    subscription_confirmed(topic);
  }
}

void redis_bus::on_message(redisAsyncContext*, void* reply, void* self_ptr) {
  auto* self = static_cast<redis_bus*>(self_ptr);
  if (const std::optional<std::string_view> topic =
          read_subscribed(static_cast<const redisReply*>(reply), self->channel_prefix_)) {
    self->subscription_confirmed(*topic);
    return;
  }
  const std::optional<bus_event> event = read_message(static_cast<const redisReply*>(reply), self->channel_prefix_);
  // A message already on its way when the topic was unwatched is dropped here.
  if (!event || !self->watched_.contains(event->topic) || !self->sink_) return;
  try {
    self->sink_(*event);
    ++self->delivered_;
  } catch (...) {
    ++self->lost_;  // the sink must not throw; the bus thread outlives one that does
  }
}

bool redis_bus::publish(std::string_view topic, std::string_view data) {
  // Refused at once while Redis is away: the caller learns it now, and
  // nothing piles up for a Redis that may not come back soon.
  if (!connected_) {
    ++refused_;
    return false;
  }
  if (outstanding_.fetch_add(1) >= options_.max_outstanding) {
    --outstanding_;
    ++refused_;
    return false;
  }
  ++published_;
  asio::post(io_, [this, t = std::string(topic), d = std::string(data)] { send_publish(t, d); });
  return true;
}

void redis_bus::send_publish(const std::string& topic, const std::string& data) {
  const std::string key = stream_prefix_ + topic;
  const std::string channel = channel_prefix_ + topic;
  const std::array<std::string_view, 8> args{"EVALSHA", publish_sha_, "1", key, channel, data, history_, history_ttl_};
  if (!commands_.send(args, &redis_bus::on_published, this)) {
    --outstanding_;
    ++lost_;  // accepted while connected, dropped with the connection
  }
}

void redis_bus::on_published(redisAsyncContext*, void* reply, void* self_ptr) {
  auto* self = static_cast<redis_bus*>(self_ptr);
  --self->outstanding_;
  const auto* r = static_cast<const redisReply*>(reply);
  if (r != nullptr && reply_error(r).empty()) return;
  ++self->lost_;
  // Only a SCRIPT FLUSH makes Redis forget the script mid-connection. Not
  // retried (a retry could overtake a later publish); loaded again for the next.
  if (reply_error(r).starts_with("NOSCRIPT")) {
    const std::array<std::string_view, 3> args{"SCRIPT", "LOAD", redis_scripts::publish};
    self->commands_.send(args, &redis_bus::on_script_loaded, nullptr);
  }
}

void redis_bus::replay(std::string_view topic, std::string_view last_id, std::size_t limit, replay_done done) {
  const std::optional<stream_id> last = parse_stream_id(last_id);
  if (!last) {
    // Not an id this bus hands out: whatever the client saw, it cannot be resumed.
    done(bus_replay{{}, false, false});
    return;
  }
  if (!connected_) {
    done(bus_replay{{}, true, true});
    return;
  }
  if (replays_.fetch_add(1) >= options_.max_replays) {
    --replays_;
    done(bus_replay{{}, true, true});
    return;
  }
  asio::post(io_, [this, t = std::string(topic), l = *last, limit, d = std::move(done)]() mutable {
    send_replay(t, l, limit, d);
  });
}

// A replay of a topic whose SUBSCRIBE is not confirmed yet waits for it. The
// two go on two connections, and Redis serves connections in no promised
// order: read first, a message published between the read and the
// subscription would reach neither (the client resuming on an instance that
// had no subscriber of its topic would silently miss it).
void redis_bus::send_replay(const std::string& topic, stream_id last, std::size_t limit, replay_done& done) {
  if (const auto it = confirming_.find(topic); it != confirming_.end()) {
    it->second.replays.push_back({last, limit, std::move(done)});
    return;
  }
  const std::string key = stream_prefix_ + topic;
  const std::string after = fmt::format("{}-{}", last.ms, last.seq);
  const std::string count = std::to_string(limit);
  const std::array<std::string_view, 6> args{"EVALSHA", replay_sha_, "1", key, after, count};
  auto call = std::make_unique<replay_call>(replay_call{this, last, std::move(done)});
  if (commands_.send(args, &redis_bus::on_replayed, call.get())) {
    (void)call.release();  // on_replayed owns it now
    return;
  }
  --replays_;
  call->done(bus_replay{{}, true, true});
}

void redis_bus::on_replayed(redisAsyncContext*, void* reply, void* call_ptr) {
  const std::unique_ptr<replay_call> call(static_cast<replay_call*>(call_ptr));
  --call->bus->replays_;
  const auto* r = static_cast<const redisReply*>(reply);
  call->done(r == nullptr || !reply_error(r).empty() ? bus_replay{{}, true, true} : read_replay(r, call->last));
}

bus_stats redis_bus::stats() const noexcept {
  return {published_.load(),
          delivered_.load(),
          refused_.load(),
          lost_.load(),
          reconnects_.load(),
          connected_.load(),
          commands_.timeouts() + subscriber_.timeouts()};
}

}  // namespace

std::unique_ptr<bus> make_redis_bus(redis_bus_options options) {
  return std::make_unique<redis_bus>(std::move(options));
}

}  // namespace stet::detail
