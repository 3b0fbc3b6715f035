#include "net/ws/websocket_worker.hpp"

#include "net/server/worker.hpp"
#include "net/ws/topic_hub.hpp"
#include "net/ws/websocket_connection.hpp"
#include "websocket/frame_writer.hpp"
#include "websocket/protocol.hpp"

#include <algorithm>

namespace stet::detail {

websocket_worker::websocket_worker(worker& owner, topic_hub* hub)
    : owner_(owner),
      hub_(hub),
      mailbox_(std::make_shared<websocket_mailbox>(owner.io(),
                                                   websocket_mailbox::limits{owner.options().websocket_mailbox_messages,
                                                                             owner.options().websocket_mailbox_bytes},
                                                   owner.counters().websockets,
                                                   [this](const websocket_publication& p) { deliver(p); })),
      discard_(new char[ws::read_block_bytes]) {
  blocks_.reserve(retained_blocks);
  if (hub_ != nullptr) hub_slot_ = hub_->join(*this);
}

websocket_worker::~websocket_worker() {
  mailbox_->close();
  // Sessions end before their worker does; a harness that drops a worker
  // without draining it must still not leave them linked to the timer lists.
  for (const auto& c : sessions_) deadline_list::unlink(c->deadline());
  if (hub_ != nullptr) hub_->leave(hub_slot_);
  for (char* b : blocks_) delete[] b;
}

asio::io_context& websocket_worker::io() noexcept { return owner_.io(); }

websocket_counters& websocket_worker::counters() noexcept { return owner_.counters().websockets; }

void websocket_worker::report_error(std::string_view what) noexcept {
  try {
    owner_.report_error("websocket callback", {}, what);
  } catch (...) {  // a reporter that throws is not this session's problem
  }
}

void websocket_worker::adopt(std::shared_ptr<websocket_connection> c) {
  c->slot = sessions_.size();
  sessions_.push_back(std::move(c));
}

void websocket_worker::ended(websocket_connection& c) noexcept {
  const std::size_t slot = c.slot;
  if (slot >= sessions_.size() || sessions_[slot].get() != &c) return;
  std::swap(sessions_[slot], sessions_.back());
  sessions_[slot]->slot = slot;
  // The caller holds its own reference: `c` outlives this.
  sessions_.pop_back();
  owner_.websocket_closed();
}

void websocket_worker::drain() {
  const std::vector<std::shared_ptr<websocket_connection>> open = sessions_;
  for (const auto& c : open) {
    c->drain();
    c->flush();
  }
}

void websocket_worker::terminate_all() noexcept {
  const std::vector<std::shared_ptr<websocket_connection>> open = sessions_;
  for (const auto& c : open) c->terminate();
}

// Output queued outside a session's own read (a publish from another session,
// a post from another thread, a timer) waits for this one task: everything
// queued until it runs shares each session's write.
void websocket_worker::want_flush(websocket_connection& c) noexcept {
  if (c.dirty) return;
  try {
    dirty_.push_back(c.shared_from_this());
  } catch (...) {
    c.flush();  // no room to remember it: write now instead
    return;
  }
  c.dirty = true;
  if (flush_posted_) return;
  flush_posted_ = true;
  asio::post(owner_.io(), [this] { flush_dirty(); });
}

void websocket_worker::flush_dirty() noexcept {
  flush_posted_ = false;
  flushing_.swap(dirty_);
  for (const auto& c : flushing_) {
    c->dirty = false;
    c->flush();
  }
  flushing_.clear();
}

void websocket_worker::arm(deadline_hook& hook, steady::duration d) noexcept {
  owner_.deadlines().arm_for(hook, d, steady::now());
}

char* websocket_worker::take_block() {
  if (blocks_.empty()) return new char[ws::read_block_bytes];
  char* b = blocks_.back();
  blocks_.pop_back();
  return b;
}

void websocket_worker::give_block(char* block) noexcept {
  if (blocks_.size() < retained_blocks) {
    blocks_.push_back(block);  // reserved: cannot throw
  } else {
    delete[] block;
  }
}

std::span<char> websocket_worker::discard_buffer() noexcept { return {discard_.get(), ws::read_block_bytes}; }

void websocket_worker::deliver(const websocket_publication& p) noexcept {
  if (p.event) events_.deliver(p.topic, p.id, p.event);
  if (!p.frame) return;
  const ws::topic_table::topic* t = topics_.find(p.topic);
  if (t == nullptr) return;
  // Sessions only queue here (one marked for termination waits for its
  // flush), so the member list cannot change under the loop.
  for (ws::session* s : t->members) s->deliver(p.frame);
}

void websocket_worker::subscribe_events(std::string_view topic, const std::shared_ptr<event_queue>& q,
                                        std::size_t index) {
  const bool created = events_.add(topic, q, index);
  if (!created || hub_ == nullptr) return;
  try {
    hub_->topic_opened(topic, hub_slot_, topic_hub::event_members);
  } catch (...) {
    events_.remove(*q, [](std::string_view) {});
    throw;
  }
}

void websocket_worker::unsubscribe_events(event_queue& q) noexcept {
  events_.remove(q, [this](std::string_view topic) {
    if (hub_ != nullptr) hub_->topic_closing(topic, hub_slot_, topic_hub::event_members);
  });
}

websocket_mailbox::post_result websocket_worker::post_delivery(const std::shared_ptr<const websocket_publication>& p) {
  return mailbox_->post(p);
}

void websocket_worker::topic_opened(std::string_view name) {
  if (hub_ != nullptr) hub_->topic_opened(name, hub_slot_, topic_hub::websocket_members);
}

void websocket_worker::topic_closing(std::string_view name) noexcept {
  if (hub_ != nullptr) hub_->topic_closing(name, hub_slot_, topic_hub::websocket_members);
}

bool websocket_worker::publish(std::string_view topic, std::string_view message, message_kind kind) {
  if (hub_ != nullptr) return hub_->publish(topic, message, kind, this);
  // No hub (a worker turned by hand in tests): this worker's sessions only, without a bus.
  const bool any = topics_.find(topic) != nullptr;
  websocket_publication p{
      std::string(topic),
      ws::make_shared_frame(kind == message_kind::text ? ws::opcode::text : ws::opcode::binary, message)};
  deliver(p);
  return any;
}

}  // namespace stet::detail
