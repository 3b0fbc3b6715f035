// WebSocket sessions over the in-memory transport, driven by hand on one
// worker: the upgrade and the client's frames cut at every byte give the same
// answers, a disconnect at every byte ends the session (and reports 1006 or
// the handshake's code), and a publish reaches 1,000 subscribers.

#include "support/handover_routes.hpp"
#include "support/memory_server.hpp"
#include "support/ws_client.hpp"

#include <stet/router.hpp>
#include <stet/websocket.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <memory>
#include <string>
#include <vector>

namespace {

using stet::detail::memory_stream;
using stet::test::ws::client_frame;
using stet::test::ws::opcode;

struct tally {
  std::vector<std::uint16_t> closes;
  std::vector<stet::send_status> sends;
  std::size_t most_buffered = 0;
  int opens = 0;
  int drains = 0;
};

constexpr std::size_t bound = 64 * 1024;
constexpr std::size_t chunk = 16 * 1024;

stet::router routes(tally& seen) {
  stet::router r;
  r.websocket(
      "/echo", stet::websocket_options{},
      stet::websocket_handlers<>{
          .open = [&seen](stet::websocket<>&) { ++seen.opens; },
          .message = [](stet::websocket<>& ws, std::string_view m, stet::message_kind k) { ws.send(m, k); },
          .close = [&seen](stet::websocket<>&, std::uint16_t code, std::string_view) { seen.closes.push_back(code); }});
  r.websocket("/room", stet::websocket_options{},
              stet::websocket_handlers<>{.open = [](stet::websocket<>& ws) { ws.subscribe("room"); },
                                         .message = [](stet::websocket<>& ws, std::string_view m,
                                                       stet::message_kind k) { ws.publish("room", m, k); }});
  stet::websocket_options flood;
  flood.max_backpressure = bound;
  r.websocket("/flood", flood,
              stet::websocket_handlers<>{
                  .message =
                      [&seen](stet::websocket<>& ws, std::string_view, stet::message_kind) {
                        for (int i = 0; i < 100; ++i) {
                          seen.sends.push_back(ws.send(std::string(chunk, 'f'), stet::message_kind::binary));
                          seen.most_buffered = std::max(seen.most_buffered, ws.buffered_amount());
                        }
                      },
                  .drain = [&seen](stet::websocket<>&) { ++seen.drains; }});
  return r;
}

const std::string upgrade =
    "GET /echo HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
    "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n";

struct tally_holder {
  tally seen;
};

// The WebSocket routes on a worker the test turns by hand; `seen` is what
// their callbacks saw (a base, so that it is there before the routes).
class memory_server : public tally_holder, public stet::test::memory_server {
 public:
  memory_server() : stet::test::memory_server(routes(seen)) {}
};

// What the server wrote after its 101 head.
std::string after_head(const std::string& wire) {
  const std::size_t end = wire.find("\r\n\r\n");
  return end == std::string::npos ? std::string() : wire.substr(end + 4);
}

// Two messages (one fragmented around a ping) and the close handshake.
const std::string session_bytes = upgrade + client_frame(opcode::text, "hello") +
                                  client_frame(opcode::binary, "bi", false) + client_frame(opcode::ping, "p") +
                                  client_frame(opcode::continuation, "nary") +
                                  client_frame(opcode::close, std::string("\x03\xe8", 2) + "bye");

TEST(WebsocketSession, EverySplitOfTheClientBytesGetsTheSameAnswers) {
  memory_server server;
  const std::string whole = server.exchange({session_bytes});
  ASSERT_EQ(whole.rfind("HTTP/1.1 101 Switching Protocols\r\n", 0), 0u) << whole;
  std::string frames = after_head(whole);
  const std::string expected = frames;
  std::vector<stet::test::ws_frame> got;
  while (auto f = stet::test::take_frame(frames)) got.push_back(*f);
  ASSERT_EQ(got.size(), 4u);
  EXPECT_EQ(got[0].payload, "hello");
  EXPECT_EQ(got[1].opcode, 10);
  EXPECT_EQ(got[2].opcode, 2);
  EXPECT_EQ(got[2].payload, "binary");
  EXPECT_EQ(got[3].opcode, 8);
  EXPECT_EQ(got[3].close_code(), 1000);
  ASSERT_EQ(server.seen.closes, (std::vector<std::uint16_t>{1000}));

  for (std::size_t at = 1; at < session_bytes.size(); ++at) {
    const std::string split = server.exchange({session_bytes.substr(0, at), session_bytes.substr(at)});
    ASSERT_EQ(after_head(split), expected) << "split at byte " << at;
  }
  EXPECT_EQ(server.seen.closes.size(), session_bytes.size());
}

TEST(WebsocketSession, ADisconnectAtEveryByteEndsTheSession) {
  memory_server server;
  for (std::size_t at = upgrade.size(); at < session_bytes.size(); ++at) {
    server.seen.closes.clear();
    server.exchange({session_bytes.substr(0, at)});
    ASSERT_EQ(server.seen.closes.size(), 1u) << "cut at byte " << at;
    EXPECT_EQ(server.seen.closes[0], stet::close_code::abnormal) << "cut at byte " << at;
  }
}

TEST(WebsocketSession, APublishReachesAThousandSubscribers) {
  memory_server server;
  const std::string join =
      "GET /room HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
      "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n";
  std::vector<std::shared_ptr<memory_stream>> members;
  for (int i = 0; i < 1000; ++i) {
    members.push_back(server.connect());
    members.back()->feed(join);
  }
  server.run_ready();
  for (auto& m : members) ASSERT_EQ(m->take_output().rfind("HTTP/1.1 101", 0), 0u);
  members[123]->feed(client_frame(opcode::text, "to everyone"));
  server.run_ready();
  for (auto& m : members) {
    std::string out = m->take_output();
    const auto f = stet::test::take_frame(out);
    ASSERT_TRUE(f);
    EXPECT_EQ(f->payload, "to everyone");
    EXPECT_TRUE(out.empty());
  }
  for (auto& m : members) m->feed_eof();
  server.run_ready();
}

TEST(WebsocketSession, APeerThatNeverReadsKeepsTheQueueBounded) {
  memory_server server;
  auto stream = server.connect();
  std::string open = upgrade;
  open.replace(open.find("/echo"), 5, "/flood");
  stream->feed(open);
  server.run_ready();
  ASSERT_EQ(stream->take_output().rfind("HTTP/1.1 101", 0), 0u);
  stream->blocked_writes = std::numeric_limits<std::size_t>::max();  // nothing is taken any more
  stream->feed(client_frame(opcode::text, "go") + client_frame(opcode::text, "again"));
  server.run_until([&] { return server.seen.sends.size() == 100; });
  server.run_ready();  // the writes keep failing; the second message waits
  EXPECT_EQ(server.seen.sends.size(), 100u) << "reading stops while the queue is over the bound";
  EXPECT_LE(server.seen.most_buffered, bound + chunk + 16);
  EXPECT_EQ(std::count(server.seen.sends.begin(), server.seen.sends.end(), stet::send_status::backpressure), 1);
  EXPECT_EQ(std::count(server.seen.sends.begin(), server.seen.sends.end(), stet::send_status::dropped), 96);
  EXPECT_EQ(server.seen.drains, 0);

  stream->blocked_writes = 0;  // the peer reads: the queue drains, then the second message is read
  ASSERT_TRUE(server.run_until([&] { return server.seen.sends.size() == 200; }));
  EXPECT_GE(server.seen.drains, 1);
  stream->feed_eof();
  server.run_ready();
}

// ------------------------------------------------------------- hand-over --
// Whatever the connection read past the upgrade's head reaches the session
// whole, however large its read buffer grew first: behind a streamed body
// (head + 64 KiB) or a long head. Once a fixed 32 KiB copy overflowed.

// `count` numbered text frames of `size` bytes.
std::string numbered_frames(int count, std::size_t size) {
  std::string out;
  for (int i = 0; i < count; ++i) out += client_frame(opcode::text, std::string(size, static_cast<char>('a' + i % 26)));
  return out;
}

// How many of the numbered frames came back, in order, after the 101.
int echoes_in(const std::string& wire, std::size_t size) {
  const std::size_t at = wire.find("HTTP/1.1 101");
  if (at == std::string::npos) return -1;
  std::string frames = after_head(wire.substr(at));
  int n = 0;
  while (auto f = stet::test::take_frame(frames)) {
    if (f->opcode != 1 || f->payload != std::string(size, static_cast<char>('a' + n % 26))) break;
    ++n;
  }
  return n;
}

TEST(WebsocketHandover, FramesBehindAStreamedBodyReachTheSessionAtEverySplit) {
  stet::test::memory_server server(stet::test::handover_routes("/echo"));
  constexpr int count = 60;
  constexpr std::size_t size = 1000;
  const std::string head = "PUT /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n\r\n";
  const std::string rest = "body" + upgrade + numbered_frames(count, size);
  for (std::size_t at = 0; at < rest.size(); at += 4999) {
    std::vector<std::string> reads = {head, rest.substr(0, at), rest.substr(at)};
    if (at == 0) reads.erase(reads.begin() + 1);
    const std::string wire = server.exchange(reads);
    ASSERT_NE(wire.find("HTTP/1.1 200"), std::string::npos) << "split at " << at;
    ASSERT_EQ(echoes_in(wire, size), count) << "split at " << at;
  }
}

TEST(WebsocketHandover, FramesBehindALongHeadReachTheSession) {
  stet::server_options options;
  options.max_header_bytes = 128 * 1024;
  stet::test::memory_server server(stet::test::handover_routes("/echo"), options);
  constexpr int count = 60;
  constexpr std::size_t size = 1000;
  const std::string head = upgrade.substr(0, upgrade.size() - 2) + "X-Pad: " + std::string(70 * 1024, 'p') + "\r\n\r\n";
  const std::string bytes = head + numbered_frames(count, size);
  for (std::size_t at : {std::size_t{1}, head.size() - 1, head.size(), head.size() + 3, head.size() + 33 * 1024}) {
    const std::string wire = server.exchange({bytes.substr(0, at), bytes.substr(at)});
    ASSERT_EQ(echoes_in(wire, size), count) << "split at " << at;
  }
}

}  // namespace

namespace {

// ---------------------------------------------------------- back-pressure --
// Bytes already read when back-pressure stopped the reading are handled as
// soon as the queue drains, before anything more is read: a message and a
// ping in the same read as a large message whose echo filled the queue once
// waited for bytes that would never come.

TEST(WebsocketBackPressure, BytesReadBeforeTheQueueFilledAreHandledOnceItDrains) {
  stet::router r;
  stet::websocket_options options;
  options.max_backpressure = 1024 * 1024;
  options.max_message_bytes = 4 * 1024 * 1024;
  r.websocket("/echo", options,
              stet::websocket_handlers<>{
                  .message = [](stet::websocket<>& ws, std::string_view m, stet::message_kind k) { ws.send(m, k); }});
  stet::test::memory_server server(std::move(r));
  const std::string big(2 * 1024 * 1024, 'b');
  const std::string wire =
      server.exchange({upgrade + client_frame(opcode::binary, big) + client_frame(opcode::text, "right behind") +
                       client_frame(opcode::ping, "still there?")});
  std::string frames = after_head(wire);
  std::vector<stet::test::ws_frame> got;
  while (auto f = stet::test::take_frame(frames)) got.push_back(*f);
  ASSERT_EQ(got.size(), 3u) << "frames after the 101: " << got.size() << ", wire " << wire.size() << ", left "
                            << frames.size() << ", first payload " << (got.empty() ? 0 : got[0].payload.size());
  EXPECT_EQ(got[0].payload.size(), big.size());
  EXPECT_EQ(got[1].opcode, 1);
  EXPECT_EQ(got[1].payload, "right behind");
  EXPECT_EQ(got[2].opcode, 10);
  EXPECT_EQ(got[2].payload, "still there?");
}

}  // namespace
