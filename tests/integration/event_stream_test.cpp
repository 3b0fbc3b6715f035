// Server-sent events over real sockets: the stream's head, events from the
// handler and from topics (server::publish, WebSocket publishes), resume with
// Last-Event-ID and the gap event, heartbeats, the bound on a slow reader, and
// the retry hint of a stopping server.
#include <stet/events.hpp>
#include <stet/stet.hpp>

#include "events/event_stats.hpp"
#include "support/http_client.hpp"
#include "support/test_server.hpp"
#include "support/tls_certs.hpp"
#include "support/tls_client.hpp"
#include "support/tls_server.hpp"
#include "support/ws_client.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

namespace {

using namespace std::chrono_literals;
using stet::test::raw_client;
using stet::test::running_server;

// Reads a stream's bytes (the head first) until `wanted` appears.
class sse_client {
 public:
  explicit sse_client(std::uint16_t port, std::string_view path, std::string_view extra = {}, int rcvbuf = 0)
      : c_(port, "127.0.0.1", rcvbuf) {
    c_.send("GET " + std::string(path) + " HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n" + std::string(extra) +
            "\r\n");
    head_ = c_.read_response(true);
  }
  const std::optional<stet::test::http_response>& head() const { return head_; }
  raw_client& raw() { return c_; }
  /// Everything received so far, once `wanted` is among it (empty on timeout).
  bool wait_for(std::string_view wanted, std::chrono::milliseconds timeout = 5s) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (seen_.find(wanted) == std::string::npos) {
      const auto now = std::chrono::steady_clock::now();
      if (now >= deadline) return false;
      const std::string got = c_.read_once(std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now));
      if (got.empty()) return false;
      seen_ += got;
    }
    return true;
  }
  const std::string& seen() const { return seen_; }

 private:
  raw_client c_;
  std::optional<stet::test::http_response> head_;
  std::string seen_;
};

// The number after "id: " of the last event in `s` whose data is `data`.
std::string id_of(const std::string& s, std::string_view data) {
  const std::size_t d = s.rfind("data: " + std::string(data) + "\n");
  if (d == std::string::npos) return {};
  const std::size_t i = s.rfind("id: ", d);
  if (i == std::string::npos) return {};
  return s.substr(i + 4, s.find('\n', i) - i - 4);
}

class EventStream : public ::testing::Test {
 protected:
  void SetUp() override { start(stet::test::test_options()); }
  void start(stet::server_options options) {
    stet::router r;
    r.get("/plain", [this](stet::request&) {
      return stet::event_stream([this](stet::event_channel& ch) {
        ++opened_;
        ch.send({.data = "hello", .id = "1"});
        const std::lock_guard lock(mutex_);
        channel_ = ch;
      });
    });
    r.get("/topic/{name}", [](stet::request& req, std::string_view name) { return stet::topic_stream(req, name); });
    r.get("/beat", [](stet::request&) {
      stet::event_stream_options o;
      o.heartbeat = 100ms;
      return stet::event_stream([](stet::event_channel&) {}, o);
    });
    r.get("/tiny/{name}", [](stet::request& req, std::string_view name) {
      stet::event_stream_options o;
      o.max_queued_events = 4;
      o.max_queued_bytes = 64 * 1024;
      o.retry_hint = 777ms;
      return stet::topic_stream(req, name, o);
    });
    r.post("/say/{name}", [](stet::request& req, std::string_view name) {
      stet::publish(name, req.body());
      return stet::response(stet::status::accepted);
    });
    r.websocket(
        "/ws/{name}", stet::websocket_options{},
        stet::websocket_handlers<std::string>{.open = [](stet::websocket<std::string>& ws) { ws.subscribe(ws.data()); },
                                              .message = [](stet::websocket<std::string>& ws, std::string_view m,
                                                            stet::message_kind k) { ws.publish(ws.data(), m, k); }},
        [](stet::request&, std::string_view name) -> stet::upgrade_result<std::string> { return std::string(name); });
    server_ = std::make_unique<running_server>(std::move(r), options);
  }
  std::optional<stet::event_channel> channel() {
    const std::lock_guard lock(mutex_);
    return channel_;
  }
  // The stream's subscription is made on its worker once the head is out: a
  // publish before then would not reach it. Wait for it to show.
  void wait_subscribed(sse_client& c, std::string_view topic) {
    for (int i = 0; i < 200; ++i) {
      server_->get().publish(topic, "probe");
      if (c.wait_for("data: probe\n", 20ms)) return;
    }
    FAIL() << "never subscribed";
  }

  std::atomic<int> opened_{0};
  std::mutex mutex_;
  std::optional<stet::event_channel> channel_;
  std::unique_ptr<running_server> server_;
};

TEST_F(EventStream, HeadSaysEventStreamNoStoreUncompressedAndEventsArrive) {
  sse_client c(server_->port(), "/plain", "Accept-Encoding: gzip, br\r\n");
  ASSERT_TRUE(c.head());
  EXPECT_EQ(c.head()->status, 200);
  EXPECT_EQ(c.head()->header("content-type"), "text/event-stream");
  EXPECT_EQ(c.head()->header("cache-control"), "no-store");
  EXPECT_EQ(c.head()->header("transfer-encoding"), "chunked");
  EXPECT_FALSE(c.head()->header("content-encoding"));
  ASSERT_TRUE(c.wait_for("id: 1\ndata: hello\n\n"));
  // From another thread, later: the parked stream is woken.
  auto ch = channel();
  ASSERT_TRUE(ch);
  EXPECT_EQ(ch->send({.data = "two\r\nlines", .name = "multi"}), stet::event_status::queued);
  EXPECT_TRUE(c.wait_for("event: multi\ndata: two\ndata: lines\n\n"));
  EXPECT_EQ(ch->send({.data = "x", .id = "bad\nid"}), stet::event_status::invalid);
  ch->close();
  EXPECT_TRUE(c.wait_for("0\r\n\r\n"));  // the last chunk: the connection stays open for more requests
}

TEST_F(EventStream, HeadGetsTheHeadAloneAndOpensNoStream) {
  raw_client c(server_->port());
  const auto r = c.request("HEAD", "/plain");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->header("content-type"), "text/event-stream");
  EXPECT_TRUE(c.quiet_for(200ms));
  EXPECT_EQ(opened_.load(), 0);
}

TEST_F(EventStream, APublishReachesEventStreamsAndWebSocketsAlike) {
  sse_client events(server_->port(), "/topic/room");
  ASSERT_TRUE(events.head());
  wait_subscribed(events, "room");
  stet::test::ws_client ws(server_->port(), "/ws/room");
  ASSERT_EQ(ws.status(), 101);
  ASSERT_TRUE(ws.round_trip());
  // From the server, from a WebSocket member, from a POST: each reaches both.
  server_->get().publish("room", "from-server");
  ASSERT_TRUE(events.wait_for("data: from-server\n"));
  ws.send_text("from-ws");
  ASSERT_TRUE(events.wait_for("data: from-ws\n"));
  raw_client poster(server_->port());
  const auto posted = poster.request("POST", "/say/room", {}, "from-post");
  ASSERT_TRUE(posted);
  EXPECT_EQ(posted->status, 202);
  ASSERT_TRUE(events.wait_for("data: from-post\n"));
  std::vector<std::string> got;
  while (got.size() < 3) {
    const auto f = ws.next();
    ASSERT_TRUE(f);
    if (f->opcode == 1 && f->payload != "probe") got.push_back(f->payload);
  }
  EXPECT_EQ(got, (std::vector<std::string>{"from-server", "from-ws", "from-post"}));
  // Ids increase in publish order.
  EXPECT_LT(std::stoull(id_of(events.seen(), "from-server")), std::stoull(id_of(events.seen(), "from-ws")));
  EXPECT_LT(std::stoull(id_of(events.seen(), "from-ws")), std::stoull(id_of(events.seen(), "from-post")));
}

TEST_F(EventStream, ResumingWithLastEventIdMissesNothingAndRepeatsNothing) {
  std::string last;
  {
    sse_client first(server_->port(), "/topic/news");
    wait_subscribed(first, "news");
    server_->get().publish("news", "one");
    ASSERT_TRUE(first.wait_for("data: one\n"));
    last = id_of(first.seen(), "one");
  }
  // Published while nobody listened.
  server_->get().publish("news", "two");
  server_->get().publish("news", "three");
  sse_client again(server_->port(), "/topic/news", "Last-Event-ID: " + last + "\r\n");
  ASSERT_TRUE(again.wait_for("data: three\n"));
  server_->get().publish("news", "four");
  ASSERT_TRUE(again.wait_for("data: four\n"));
  const std::string& s = again.seen();
  EXPECT_EQ(s.find("data: one\n"), std::string::npos);
  EXPECT_LT(s.find("data: two\n"), s.find("data: three\n"));
  EXPECT_EQ(s.find("data: two\n"), s.rfind("data: two\n"));
  EXPECT_EQ(s.find("data: four\n"), s.rfind("data: four\n"));
  EXPECT_EQ(s.find("event: gap"), std::string::npos);
}

TEST_F(EventStream, AnIdOlderThanTheHistoryGetsAGapEvent) {
  server_->get().publish("old", "kept");
  sse_client c(server_->port(), "/topic/old", "Last-Event-ID: 5\r\n");
  ASSERT_TRUE(c.wait_for("data: kept\n"));
  EXPECT_NE(c.seen().find("event: gap\ndata: 5\n\n"), std::string::npos);
  EXPECT_LT(c.seen().find("event: gap"), c.seen().find("data: kept"));
}

TEST_F(EventStream, ASilentStreamSendsHeartbeats) {
  sse_client c(server_->port(), "/beat");
  ASSERT_TRUE(c.head());
  // Each heartbeat is a chunk of its own: count them, at 100 ms apart.
  const auto beats = [&] {
    std::size_t n = 0;
    for (std::size_t at = c.seen().find(":\n\n"); at != std::string::npos; at = c.seen().find(":\n\n", at + 1)) ++n;
    return n;
  };
  const auto deadline = std::chrono::steady_clock::now() + 3s;
  while (beats() < 3 && std::chrono::steady_clock::now() < deadline) c.wait_for("never", 100ms);
  EXPECT_GE(beats(), 3u);
}

TEST_F(EventStream, ASlowReaderIsCutOffWithARetryHintInsteadOfGrowingTheServer) {
  const auto overflowed = stet::detail::sse_stats().overflow_closed.load();
  sse_client slow(server_->port(), "/tiny/flood", {}, 4096);
  ASSERT_TRUE(slow.head());
  wait_subscribed(slow, "flood");
  // Far more than the socket buffers and the queue's four events hold.
  const std::string big(32 * 1024, 'x');
  for (int i = 0; i < 200; ++i) server_->get().publish("flood", big);
  for (int i = 0; i < 100 && stet::detail::sse_stats().overflow_closed.load() == overflowed; ++i)
    std::this_thread::sleep_for(10ms);
  EXPECT_GT(stet::detail::sse_stats().overflow_closed.load(), overflowed);
  // Reading now, the client finds the retry hint at the end and the stream closed.
  const std::string rest = slow.raw().read_until_close(5s);
  EXPECT_NE((slow.seen() + rest).find("retry: 777\n\n"), std::string::npos);
}

TEST_F(EventStream, AStoppingServerSendsARetryHintAndCloses) {
  sse_client c(server_->port(), "/plain");
  ASSERT_TRUE(c.wait_for("data: hello\n"));
  std::thread stopper([this] { server_->get().stop(); });
  EXPECT_TRUE(c.wait_for("retry: 1000\n\n\r\n0\r\n\r\n", 3s));  // the hint, then the last chunk
  EXPECT_TRUE(c.raw().wait_closed(3s));
  stopper.join();
}

}  // namespace

namespace {

// Over HTTPS: the stream, its parked waits and its wake-ups run over the TLS
// transport like any streamed answer.
TEST(EventStreamTls, EventsAndPublishesArriveOverHttps) {
  stet::test::tls_fixture certs;
  const stet::test::cert_files site = certs.issue("site", stet::test::for_names({"localhost"}));
  stet::router r;
  r.get("/topic/{name}", [](stet::request& req, std::string_view name) { return stet::topic_stream(req, name); });
  stet::test::running_server server(std::move(r), stet::test::tls_server_options(stet::test::tls_settings(site)));
  stet::test::tls_client_options verified;
  verified.ca_file = certs.ca_file();
  stet::test::tls_client c(server.get().port(1), verified);
  ASSERT_TRUE(c.handshake()) << c.error();
  ASSERT_TRUE(c.send("GET /topic/secure HTTP/1.1\r\nHost: localhost\r\n\r\n"));
  const auto head = c.read_response(true);
  ASSERT_TRUE(head);
  EXPECT_EQ(head->header("content-type"), "text/event-stream");
  // Published until one arrives: the subscription is made once the head is out.
  bool arrived = false;
  for (int i = 0; i < 100 && !arrived; ++i) {
    server.get().publish("secure", "over tls");
    const auto deadline = std::chrono::steady_clock::now() + 50ms;
    while (!arrived && std::chrono::steady_clock::now() < deadline && c.read_more(50ms))
      arrived = c.received().find("data: over tls\n") != std::string::npos;
    arrived = arrived || c.received().find("data: over tls\n") != std::string::npos;
  }
  EXPECT_TRUE(arrived);
}

}  // namespace
