// stet::event_stream(): a streamed answer whose producer takes its pieces
// from the stream's event_queue, and parks the connection while none wait
// (no polling: the next push wakes it), with a heartbeat comment when the
// stream has been silent for options.heartbeat.

#include <stet/events.hpp>
#include <stet/request.hpp>
#include <stet/response.hpp>

#include "events/event_format.hpp"
#include "events/event_queue.hpp"
#include "events/event_stats.hpp"
#include "events/event_topics.hpp"
#include "events/stream_parking.hpp"

#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>
#include <stdexcept>
#include <utility>

namespace stet {
namespace {

using clock = std::chrono::steady_clock;

// Owned by the response's producer (one per stream); destroyed with the
// stream on the connection's worker, where it ends the subscriptions.
class event_pump {
 public:
  event_pump(std::function<void(event_channel&)> on_open, const event_stream_options& o)
      : on_open_(std::move(on_open)), options_(o), queue_(std::make_shared<detail::event_queue>(o)) {}
  event_pump(const event_pump&) = delete;
  event_pump& operator=(const event_pump&) = delete;
  ~event_pump() {
    queue_->detach();
    if (opened_) detail::sse_stats().open.fetch_sub(1, std::memory_order_relaxed);
  }

  bool next(stream_writer& w) {
    if (!opened_) open();
    const auto now = clock::now();
    detail::stream_parking* const parking = detail::current_stream_parking();
    if ((parking != nullptr && parking->stopping()) ||
        (options_.max_lifetime.count() > 0 && now - opened_at_ >= options_.max_lifetime))
      return end_with_retry(w);
    if (options_.heartbeat.count() > 0 && now - last_write_ >= options_.heartbeat && queue_->empty()) {
      detail::append_event_comment(w.buffer(), {});
      detail::sse_stats().heartbeats.fetch_add(1, std::memory_order_relaxed);
      last_write_ = now;
      return true;
    }
    const auto park = [&] { return parking != nullptr ? parking->park(wait_at_most(now)) : std::function<void()>(); };
    switch (queue_->take(w.buffer(), w.target_bytes(), park)) {
      case detail::event_queue::take_result::taken: last_write_ = now; return true;
      case detail::event_queue::take_result::parked:
      case detail::event_queue::take_result::empty: return true;
      case detail::event_queue::take_result::overflowed: return end_with_retry(w);
      case detail::event_queue::take_result::ended: return false;
    }
    return false;
  }

 private:
  void open() {
    opened_ = true;
    opened_at_ = last_write_ = clock::now();
    detail::sse_stats().open.fetch_add(1, std::memory_order_relaxed);
    detail::sse_stats().opened.fetch_add(1, std::memory_order_relaxed);
    // Subscriptions are made on this worker's tables, and only from its thread.
    queue_->set_topics(detail::current_event_topics());
    event_channel channel(queue_);
    if (on_open_) on_open_(channel);
    on_open_ = nullptr;  // whatever it captured goes now, not with the stream
  }

  // Until the heartbeat or the end of the stream's lifetime, whichever comes
  // first (0: no limit: only a push wakes it).
  std::chrono::milliseconds wait_at_most(clock::time_point now) const {
    using std::chrono::milliseconds;
    std::optional<clock::time_point> due;
    if (options_.heartbeat.count() > 0) due = last_write_ + options_.heartbeat;
    if (options_.max_lifetime.count() > 0) {
      const clock::time_point end = opened_at_ + options_.max_lifetime;
      due = due ? std::min(*due, end) : end;
    }
    if (!due) return milliseconds(0);
    return std::max(std::chrono::ceil<milliseconds>(*due - now), milliseconds(1));
  }

  bool end_with_retry(stream_writer& w) {
    detail::append_event_retry(w.buffer(), options_.retry_hint);
    queue_->detach();
    return false;
  }

  std::function<void(event_channel&)> on_open_;
  const event_stream_options options_;
  std::shared_ptr<detail::event_queue> queue_;
  clock::time_point opened_at_{};
  clock::time_point last_write_{};
  bool opened_ = false;
};

}  // namespace

event_status event_channel::send(const event& e) {
  auto text = std::make_shared<std::string>();
  if (!append_event(*text, e)) return event_status::invalid;
  return q_->push(std::move(text));
}

event_status event_channel::comment(std::string_view text) {
  auto t = std::make_shared<std::string>();
  detail::append_event_comment(*t, text);
  return q_->push(std::move(t));
}

void event_channel::subscribe(std::string_view topic, std::string_view last_event_id) {
  detail::event_topics* here = detail::current_event_topics();
  if (here == nullptr || here != q_->topics())
    throw std::logic_error("event_channel::subscribe: only on the stream's worker, once it is open");
  const bool resuming = !last_event_id.empty();
  const std::size_t index = q_->add_subscription(topic, resuming);
  q_->set_topics(here);
  here->subscribe(topic, q_, index);
  if (!resuming) return;
  here->replay(
      topic, last_event_id, q_->capacity(),
      [q = q_, index, last = std::string(last_event_id)](const detail::bus_replay& r) { q->replayed(index, last, r); });
}

void event_channel::close() noexcept { q_->close(); }

bool event_channel::closed() const noexcept { return q_->closed(); }

response event_stream(std::function<void(event_channel&)> on_open, event_stream_options options) {
  response r(status::ok);
  r.with_header("Content-Type", "text/event-stream").with_header("Cache-Control", "no-store");
  // nginx buffers proxied answers unless told otherwise; an event must not wait.
  r.with_header("X-Accel-Buffering", "no");
  r.no_compression();
  auto pump = std::make_shared<event_pump>(std::move(on_open), options);
  r.set_stream([pump](stream_writer& w) { return pump->next(w); });
  return r;
}

response topic_stream(const request& req, std::string_view topic, event_stream_options options) {
  return event_stream([topic = std::string(topic),
                       last = std::string(last_event_id(req))](event_channel& ch) { ch.subscribe(topic, last); },
                      options);
}

bool publish(std::string_view topic, std::string_view message) {
  detail::event_topics* here = detail::current_event_topics();
  if (here == nullptr) throw std::logic_error("stet::publish outside a worker's thread: use server::publish");
  return here->publish(topic, message);
}

std::string_view last_event_id(const request& req) noexcept {
  const std::optional<std::string_view> v = req.header("Last-Event-ID");
  return v ? *v : std::string_view();
}

}  // namespace stet
