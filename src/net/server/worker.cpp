#include "net/server/worker.hpp"

#include "counters/counter_add.hpp"
#include "log/sigpipe.hpp"
#include "net/accept/proxy_intake.hpp"
#include "net/http1/connection.hpp"
#include "net/ws/topic_hub.hpp"
#include "net/ws/websocket_worker.hpp"
#include "request/proxy_trust.hpp"
#include "route/router_access.hpp"

#include <algorithm>
#include <vector>

namespace stet::detail {

namespace {

// Spare exchanges a worker keeps (about 15 KiB each): enough for a busy
// moment's concurrency to reuse them, few enough that a burst of ten thousand
// busy connections does not keep ten thousand after it passes.
constexpr std::size_t retained_exchanges = 128;

}  // namespace

const proxy_trust& connection_host::trusted_proxies() const noexcept {
  static const proxy_trust nobody;
  return nobody;
}

connection_host::admission connection_host::admit(const endpoint& /*peer*/) noexcept { return admission::admitted; }
void connection_host::release(const endpoint& /*peer*/) noexcept {}

worker::worker(connection_host& host, const router& routes, const server_options& options, access_log_sink* log_sink,
               offload_pool* offload)
    : host_(host),
      routes_(routes),
      options_(options),
      tasks_(io_, offload),
      keep_running_(asio::make_work_guard(io_)),
      writer_(options.server_name),
      deadlines_(io_, {options.header_timeout, options.body_timeout, options.idle_timeout, options.write_timeout,
                       options.linger_timeout, options.handler_timeout, options.first_byte_timeout}),
      drain_deadline_(io_),
      log_(log_sink, options.access_log),
      log_flush_(io_),
      timing_(options.metrics != nullptr || options.tracer != nullptr || options.server_timing),
      trust_(host.trusted_proxies().empty() ? nullptr : &host.trusted_proxies()),
      exchanges_(options, retained_exchanges),
      discard_(new char[discard_bytes]) {
  writer_.dates().count_refreshes_in(&counters_.date_refreshes);
  counters_.memo = &memo_;
  counters_.routes = &router_access::state(routes_);
  counters_.offload = offload;
  if (options_.metrics) metrics_access::attach(*options_.metrics, &counters_);
}

worker::~worker() {
  join();
  log_.flush();
  if (options_.metrics) metrics_access::detach(*options_.metrics, &counters_);
}

// A batch goes to the writer thread when it is full or, at the latest, a second
// after its first line: one timer wait per second of traffic, not per request.
void worker::log_access(const access_record& r) {
  if (!log_.wants(r.status)) return;
  log_.append(r);
  if (log_flush_armed_ || !log_.pending()) return;
  log_flush_armed_ = true;
  log_flush_.expires_after(std::chrono::seconds(1));
  log_flush_.async_wait([this](boost::system::error_code) {
    log_flush_armed_ = false;
    log_.flush();
  });
}

void worker::start_thread() {
  thread_ = std::thread([this] {
    block_sigpipe_in_this_thread();  // sendfile(2) to a client that reset
    enter_thread();
    io_.run();
    leave_thread();
  });
}

void worker::enter_thread() noexcept {
  // Owned by the worker, not the thread: the metrics may read them until detach().
  install_thread_memo_stats(&memo_);
  install_thread_frame_pool(&frames_);
  install_thread_executor(&tasks_);
  set_current_event_topics(this);
}

void worker::leave_thread() noexcept {
  set_current_event_topics(nullptr);
  install_thread_executor(nullptr);
  install_thread_frame_pool(nullptr);
  install_thread_memo_stats(nullptr);
}

void worker::join() {
  if (thread_.joinable()) thread_.join();
}

void worker::report_error(std::string_view where, std::error_code code, std::string_view detail) const {
  if (options_.error_reporter) options_.error_reporter(server_error{where, code, detail});
}

void worker::adopt(std::unique_ptr<transport> stream, const endpoint& peer) {
  if (draining_) {
    stream->close();
    host_.connection_closed();
    return;
  }
  single_writer_add(counters_.connections_accepted);
  const connection_host::admission admitted = host_.admit(peer);
  if (admitted == connection_host::admission::refused) {
    count_close(close_reason::per_address);
    stream->close();
    host_.connection_closed();
    return;
  }
  auto c = std::make_shared<connection>(*this, std::move(stream), peer);
  if (admitted == connection_host::admission::counted) c->set_address_counted();
  connections_.insert(c.get());
  counters_.connections_open.store(connections_.size(), std::memory_order_relaxed);
  c->start();
}

// Both lists are in arrival order, so the oldest evictable entry is near the
// head: only a few are looked at, the ones skipped being requests that
// already arrived (and will be read at once).
bool worker::evict_one(bool idle_too, steady::time_point newcomer, steady::time_point* ripe_at) noexcept {
  constexpr int scan = 16;
  const auto since = [](const deadline_hook* h) { return h->deadline - h->owner->timeout(); };
  const steady::time_point waited_since = std::min(newcomer, steady::now() - options_.eviction_grace);
  const auto first_evictable = [&](timeout_kind kind) -> deadline_hook* {
    deadline_list& list = deadlines_.list(kind);
    int looked = 0;
    for (deadline_hook* h = list.front(); h != nullptr && looked < scan; h = list.after(*h), ++looked) {
      if (since(h) > waited_since) {  // this one and all after it are too young
        if (ripe_at != nullptr) *ripe_at = std::min(*ripe_at, since(h) + options_.eviction_grace);
        return nullptr;
      }
      if (h->target->evictable()) return h;
    }
    return nullptr;
  };
  deadline_hook* victim = first_evictable(timeout_kind::first_byte);
  if (deadline_hook* partial = first_evictable(timeout_kind::header)) {
    if (victim == nullptr || since(partial) < since(victim)) victim = partial;
  }
  if (victim == nullptr && idle_too) victim = first_evictable(timeout_kind::idle);
  if (victim == nullptr) return false;
  victim->target->evict();
  return true;
}

void worker::drain() {
  if (draining_) return;
  draining_ = true;
  keep_running_.reset();
  const std::vector<proxy_intake_base*> intakes(intakes_.begin(), intakes_.end());
  for (proxy_intake_base* i : intakes) i->close();
  const std::vector<connection*> open(connections_.begin(), connections_.end());
  for (connection* c : open) c->drain();
  if (websockets_) websockets_->drain();  // close handshakes with 1001
  drain_deadline_.expires_after(options_.drain_timeout);
  drain_deadline_.async_wait([this](boost::system::error_code ec) {
    if (ec == asio::error::operation_aborted) return;
    const std::vector<connection*> left(connections_.begin(), connections_.end());
    for (connection* c : left) c->close();
    if (websockets_) websockets_->terminate_all();
  });
  finish_drain_if_idle();
}

void worker::closed(connection& c) noexcept {
  connections_.erase(&c);
  if (c.address_counted()) host_.release(c.peer());
  counters_.connections_open.store(connections_.size(), std::memory_order_relaxed);
  host_.connection_closed();
  finish_drain_if_idle();
}

void worker::intake_started(proxy_intake_base& intake) { intakes_.insert(&intake); }

void worker::intake_finished(proxy_intake_base& intake, bool adopted) noexcept {
  intakes_.erase(&intake);
  if (!adopted) {
    host_.connection_closed();
    finish_drain_if_idle();
  }
}

websocket_worker& worker::websockets() {
  if (!websockets_) websockets_ = std::make_unique<websocket_worker>(*this, websocket_hub_);
  return *websockets_;
}

void worker::subscribe(std::string_view topic, const std::shared_ptr<event_queue>& q, std::size_t index) {
  websockets().subscribe_events(topic, q, index);
}

void worker::unsubscribe_all(event_queue& q) noexcept {
  if (websockets_) websockets_->unsubscribe_events(q);
}

void worker::replay(std::string_view topic, std::string_view last_id, std::size_t limit, bus::replay_done done) {
  if (websocket_hub_ != nullptr) {
    websocket_hub_->replay(topic, last_id, limit, std::move(done));
    return;
  }
  done(bus_replay{});  // no hub (a worker turned by hand): nothing was published
}

bool worker::publish(std::string_view topic, std::string_view message) {
  if (websocket_hub_ != nullptr) return websocket_hub_->publish(topic, message, message_kind::text, websockets_.get());
  return websockets().publish(topic, message, message_kind::text);
}

void worker::handed_over(connection& c) noexcept {
  connections_.erase(&c);
  counters_.connections_open.store(connections_.size(), std::memory_order_relaxed);
}

void worker::websocket_closed() noexcept {
  host_.connection_closed();
  finish_drain_if_idle();
}

void worker::finish_drain_if_idle() {
  if (!draining_ || !connections_.empty() || !intakes_.empty() || (websockets_ && !websockets_->empty())) return;
  // Nothing left to serve: let io_context::run() return.
  deadlines_.cancel();  // the ended WebSocket sessions' close and idle deadlines too
  drain_deadline_.cancel();
  log_flush_.cancel();
  log_.flush();
}

}  // namespace stet::detail
