#include "metrics/websocket_metrics.hpp"

#include "metrics/exposition.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <iterator>

namespace stet::detail {

namespace {

// The sum of every worker's WebSocket counters, read with relaxed loads.
struct websocket_totals {
  std::uint64_t opened = 0, open = 0, messages_in = 0, messages_out = 0, bytes_in = 0, bytes_out = 0, dropped = 0,
                published = 0, mailbox_dropped = 0, mailbox_messages = 0, mailbox_bytes = 0, mailbox_peak_messages = 0,
                mailbox_peak_bytes = 0;
  std::array<std::uint64_t, websocket_counters::code_slots> closes{};

  void add(const websocket_counters& w) noexcept {
    opened += w.opened.load(std::memory_order_relaxed);
    open += w.open.load(std::memory_order_relaxed);
    messages_in += w.messages_in.load(std::memory_order_relaxed);
    messages_out += w.messages_out.load(std::memory_order_relaxed);
    bytes_in += w.bytes_in.load(std::memory_order_relaxed);
    bytes_out += w.bytes_out.load(std::memory_order_relaxed);
    dropped += w.dropped.load(std::memory_order_relaxed);
    published += w.published.load(std::memory_order_relaxed);
    mailbox_dropped += w.mailbox_dropped.load(std::memory_order_relaxed);
    mailbox_messages += w.mailbox_messages.load(std::memory_order_relaxed);
    mailbox_bytes += w.mailbox_bytes.load(std::memory_order_relaxed);
    // A peak is one worker's: the largest of them, not their sum.
    mailbox_peak_messages = std::max(mailbox_peak_messages, w.mailbox_peak_messages.load(std::memory_order_relaxed));
    mailbox_peak_bytes = std::max(mailbox_peak_bytes, w.mailbox_peak_bytes.load(std::memory_order_relaxed));
    for (std::size_t i = 0; i < closes.size(); ++i) closes[i] += w.closes[i].load(std::memory_order_relaxed);
  }
};

void append_in_out(std::string& out, std::string_view name, std::uint64_t in, std::uint64_t sent) {
  fmt::format_to(std::back_inserter(out), "{}{{direction=\"in\"}} {}\n{}{{direction=\"out\"}} {}\n", name, in, name,
                 sent);
}

void append_one(std::string& out, std::string_view name, std::string_view help, std::string_view type,
                std::uint64_t value) {
  append_family(out, name, help, type);
  fmt::format_to(std::back_inserter(out), "{} {}\n", name, value);
}

}  // namespace

void append_websocket_metrics(const std::vector<const worker_counters*>& workers, std::string& out) {
  websocket_totals t;
  for (const worker_counters* w : workers) t.add(w->websockets);
  if (t.opened == 0 && t.published == 0) return;
  append_one(out, "stet_websockets_open", "WebSocket sessions open now.", "gauge", t.open);
  append_one(out, "stet_websockets_opened_total", "WebSocket upgrades accepted.", "counter", t.opened);
  append_family(out, "stet_websocket_messages_total", "WebSocket messages received (in) and queued to send (out).",
                "counter");
  append_in_out(out, "stet_websocket_messages_total", t.messages_in, t.messages_out);
  append_family(out, "stet_websocket_bytes_total",
                "WebSocket bytes read and written after the 101, frame heads included.", "counter");
  append_in_out(out, "stet_websocket_bytes_total", t.bytes_in, t.bytes_out);
  append_one(out, "stet_websocket_dropped_total",
             "WebSocket messages not queued: the send queue was over max_backpressure.", "counter", t.dropped);
  append_one(out, "stet_websocket_publishes_total", "publish() calls made from WebSocket callbacks.", "counter",
             t.published);
  append_one(out, "stet_websocket_mailbox_dropped_total",
             "Cross-thread WebSocket posts (publishes from other workers, handle sends) refused: the worker's "
             "mailbox was full.",
             "counter", t.mailbox_dropped);
  append_one(out, "stet_websocket_mailbox_messages", "Cross-thread WebSocket posts waiting in the workers' mailboxes.",
             "gauge", t.mailbox_messages);
  append_one(out, "stet_websocket_mailbox_bytes", "Bytes held by the workers' WebSocket mailboxes.", "gauge",
             t.mailbox_bytes);
  append_one(out, "stet_websocket_mailbox_peak_messages", "The most posts one worker's WebSocket mailbox has held.",
             "gauge", t.mailbox_peak_messages);
  append_one(out, "stet_websocket_mailbox_peak_bytes", "The most bytes one worker's WebSocket mailbox has held.",
             "gauge", t.mailbox_peak_bytes);
  append_family(out, "stet_websocket_closes_total", "WebSocket sessions closed, by the code on_close reported.",
                "counter");
  auto it = std::back_inserter(out);
  for (std::size_t i = 0; i < t.closes.size(); ++i) {
    if (t.closes[i] == 0) continue;
    if (i < 16) {
      fmt::format_to(it, "stet_websocket_closes_total{{code=\"{}\"}} {}\n", 1000 + i, t.closes[i]);
    } else {
      fmt::format_to(it, "stet_websocket_closes_total{{code=\"{}\"}} {}\n", i == 16 ? "3000-4999" : "other",
                     t.closes[i]);
    }
  }
}

}  // namespace stet::detail
