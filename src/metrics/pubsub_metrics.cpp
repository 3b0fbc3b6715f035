#include "metrics/pubsub_metrics.hpp"

#include "events/event_stats.hpp"

#include <vector>

namespace stet::detail {
namespace {

void add(std::vector<metric_sample>& out, std::string_view name, std::string_view help, std::string_view type,
         double value) {
  out.push_back({name, help, type, {}, value});
}

void collect_bus(const bus_stats& s, std::vector<metric_sample>& out) {
  add(out, "stet_pubsub_published_total", "Messages the bus accepted for publishing.", "counter",
      static_cast<double>(s.published));
  add(out, "stet_pubsub_delivered_total", "Messages the bus delivered to this process.", "counter",
      static_cast<double>(s.delivered));
  add(out, "stet_pubsub_refused_total", "Publishes the bus refused: its outgoing queue was full.", "counter",
      static_cast<double>(s.refused));
  add(out, "stet_pubsub_lost_total", "Messages accepted but known not delivered.", "counter",
      static_cast<double>(s.lost));
  add(out, "stet_pubsub_reconnects_total", "Reconnections of the bus to its backend.", "counter",
      static_cast<double>(s.reconnects));
  add(out, "stet_pubsub_connected", "Whether the bus reaches its backend (1) or not (0).", "gauge",
      s.connected ? 1.0 : 0.0);
  add(out, "stet_pubsub_timeouts_total", "Backend connections dropped because it answered nothing for too long.",
      "counter", static_cast<double>(s.timeouts));
}

void collect_events(std::vector<metric_sample>& out) {
  const event_stats& s = sse_stats();
  const auto value = [](const std::atomic<std::uint64_t>& a) { return static_cast<double>(a.load()); };
  add(out, "stet_sse_streams_open", "Server-sent event streams open now.", "gauge", value(s.open));
  add(out, "stet_sse_streams_opened_total", "Server-sent event streams opened.", "counter", value(s.opened));
  add(out, "stet_sse_events_total", "Events queued to streams (sent, published, replayed).", "counter",
      value(s.events));
  add(out, "stet_sse_replayed_total", "Events replayed from a topic's history for Last-Event-ID.", "counter",
      value(s.replayed));
  add(out, "stet_sse_gaps_total", "Gap events: a Last-Event-ID older than the topic's history.", "counter",
      value(s.gaps));
  add(out, "stet_sse_overflow_closed_total", "Streams ended with a retry hint because their queue was full.", "counter",
      value(s.overflow_closed));
  add(out, "stet_sse_heartbeats_total", "Heartbeat comments sent to silent streams.", "counter", value(s.heartbeats));
}

}  // namespace

void add_pubsub_collector(metrics& m, std::weak_ptr<const bus> b) {
  m.add_collector([b = std::move(b)](std::vector<metric_sample>& out) {
    if (const auto live = b.lock()) collect_bus(live->stats(), out);
    collect_events(out);
  });
}

}  // namespace stet::detail
