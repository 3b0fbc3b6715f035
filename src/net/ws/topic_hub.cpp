#include "net/ws/topic_hub.hpp"

#include <stet/events.hpp>

#include "net/ws/websocket_worker.hpp"
#include "pubsub/in_process_bus.hpp"
#include "websocket/frame_writer.hpp"

#include <algorithm>
#include <mutex>
#include <utility>

namespace stet::detail {
namespace {

constexpr char text_kind = 't';
constexpr char binary_kind = 'b';

// The worker that is publishing on this thread, while the bus delivers at
// once (the in-process bus): its own subscribers get the message inline, as
// they did before the bus, and no post goes to its own mailbox.
thread_local constinit websocket_worker* publishing_here = nullptr;

}  // namespace

topic_hub::topic_hub() : bus_(std::make_unique<in_process_bus>()) {}

topic_hub::~topic_hub() { stop(); }

void topic_hub::start() {
  bus_->start([this](const bus_event& e) { deliver(e); });
}

void topic_hub::stop() noexcept { bus_->stop(); }

std::size_t topic_hub::join(websocket_worker& w) {
  std::unique_lock lock(mutex_);
  const auto free = std::find(workers_.begin(), workers_.end(), nullptr);
  if (free != workers_.end()) {
    *free = &w;
    return static_cast<std::size_t>(free - workers_.begin());
  }
  workers_.push_back(&w);
  return workers_.size() - 1;
}

void topic_hub::leave(std::size_t slot) noexcept {
  std::vector<std::string> gone;
  std::lock_guard order(watch_mutex_);
  {
    std::unique_lock lock(mutex_);
    if (slot < workers_.size()) workers_[slot] = nullptr;
    for (auto it = topics_.begin(); it != topics_.end();) {
      if (slot < it->second.size()) it->second[slot] = 0;
      if (std::none_of(it->second.begin(), it->second.end(), std::identity{})) {
        try {
          gone.push_back(it->first);
        } catch (...) {  // the bus keeps watching a topic nobody here wants: harmless
        }
        it = topics_.erase(it);
      } else {
        ++it;
      }
    }
  }
  for (const std::string& t : gone) bus_->unwatch(t);
}

void topic_hub::topic_opened(std::string_view topic, std::size_t slot, member_kind kind) {
  std::lock_guard order(watch_mutex_);
  bool first = false;
  {
    std::unique_lock lock(mutex_);
    auto it = topics_.find(topic);
    if (it == topics_.end()) {
      it = topics_.emplace(std::string(topic), std::vector<std::uint8_t>()).first;
      first = true;
    }
    if (it->second.size() <= slot) it->second.resize(slot + 1);
    it->second[slot] |= kind;
  }
  if (first) bus_->watch(topic);
}

void topic_hub::topic_closing(std::string_view topic, std::size_t slot, member_kind kind) noexcept {
  std::lock_guard order(watch_mutex_);
  {
    std::unique_lock lock(mutex_);
    const auto it = topics_.find(topic);
    if (it == topics_.end() || slot >= it->second.size()) return;
    it->second[slot] &= static_cast<std::uint8_t>(~kind);
    if (std::any_of(it->second.begin(), it->second.end(), std::identity{})) return;
    topics_.erase(it);
  }
  bus_->unwatch(topic);
}

bool topic_hub::publish(std::string_view topic, std::string_view message, message_kind kind, websocket_worker* here) {
  bool any = false;
  {
    std::shared_lock lock(mutex_);
    any = topics_.contains(topic);
  }
  std::string wrapped;
  wrapped.reserve(message.size() + 1);
  wrapped += kind == message_kind::binary ? binary_kind : text_kind;
  wrapped += message;
  websocket_worker* const outer = std::exchange(publishing_here, here);
  bool accepted = false;
  try {
    accepted = bus_->publish(topic, wrapped);
  } catch (...) {
    publishing_here = outer;
    throw;
  }
  publishing_here = outer;
  return accepted && any;
}

void topic_hub::replay(std::string_view topic, std::string_view last_id, std::size_t limit, bus::replay_done done) {
  bus_->replay(topic, last_id, limit, [done = std::move(done)](bus_replay r) {
    std::erase_if(r.events, [](const bus_record& e) { return e.data.empty() || e.data[0] != text_kind; });
    for (bus_record& e : r.events) e.data.erase(0, 1);
    done(std::move(r));
  });
}

void topic_hub::deliver(const bus_event& e) noexcept {
  if (e.data.empty()) return;
  const bool binary = e.data[0] == binary_kind;
  const std::string_view payload = e.data.substr(1);
  websocket_worker* const here = publishing_here;
  bool local = false;
  std::shared_ptr<const websocket_publication> p;
  try {
    std::shared_lock lock(mutex_);
    const auto it = topics_.find(e.topic);
    if (it == topics_.end()) return;
    std::uint8_t kinds = 0;
    for (const std::uint8_t k : it->second) kinds |= k;
    auto built = std::make_shared<websocket_publication>();
    built->topic = std::string(e.topic);
    if ((kinds & websocket_members) != 0)
      built->frame = ws::make_shared_frame(binary ? ws::opcode::binary : ws::opcode::text, payload);
    if ((kinds & event_members) != 0 && !binary) {
      auto text = std::make_shared<std::string>();
      if (append_event(*text, event{.data = payload, .id = e.id})) built->event = std::move(text);
      built->id = std::string(e.id);
    }
    if (!built->frame && !built->event) return;
    p = std::move(built);
    for (std::size_t slot = 0; slot < it->second.size(); ++slot) {
      websocket_worker* w = it->second[slot] != 0 ? workers_[slot] : nullptr;
      if (w == nullptr) continue;
      if (w == here) {
        local = true;
        continue;
      }
      // A full mailbox refuses it and counts that: this worker's subscribers miss it.
      w->post_delivery(p);
    }
  } catch (...) {  // out of memory: this delivery is lost here, as a full mailbox would lose it
    return;
  }
  // Outside the lock: a delivery to many subscribers takes a while, and the
  // local topic tables are this thread's own.
  if (local) here->deliver(*p);
}

}  // namespace stet::detail
