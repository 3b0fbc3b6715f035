// Fair limits, tried as a hostile client would: at max_connections a new
// client makes room by closing the connection that has waited longest without
// a complete request (else the oldest idle keep-alive) instead of waiting
// behind them; a shorter first-byte timeout; max_connections_per_address.
// Every close is counted by reason.

#include <stet/stet.hpp>

#include "support/expectations.hpp"
#include "support/http_client.hpp"
#include "support/metric_value.hpp"
#include "support/test_server.hpp"

#include <gtest/gtest.h>

#include <thread>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace {

using namespace std::chrono_literals;
using stet::test::closed_for;
using stet::test::eventually;
using stet::test::raw_client;
using stet::test::running_server;

stet::router plain_routes() {
  stet::router r;
  r.get("/plaintext", [](stet::request&) { return stet::response::text("Hello, World!"); });
  return r;
}

struct limited_server {
  std::shared_ptr<stet::metrics> metrics = std::make_shared<stet::metrics>();
  running_server server;

  /// `grace`: how long a connection waits before it may be evicted (none by
  /// default here, so that a test need not wait for its silent ones to age).
  explicit limited_server(std::size_t max, std::size_t per_address = 0, std::vector<std::string> trusted = {},
                          std::chrono::milliseconds grace = {})
      : server(plain_routes(), options(max, per_address, std::move(trusted), grace, metrics)) {}
  static stet::server_options options(std::size_t max, std::size_t per_address, std::vector<std::string> trusted,
                                      std::chrono::milliseconds grace, std::shared_ptr<stet::metrics> m) {
    stet::server_options o = stet::test::test_options();
    o.max_connections = max;
    o.eviction_grace = grace;
    o.max_connections_per_address = per_address;
    o.trusted_proxies = std::move(trusted);
    // Long enough that no timeout can be what made room.
    o.first_byte_timeout = o.header_timeout = o.idle_timeout = 60s;
    o.drain_timeout = 500ms;
    o.metrics = std::move(m);
    return o;
  }
  std::uint16_t port() const noexcept { return server.port(); }
  std::size_t open() noexcept { return server.get().open_connections(); }
};

bool served(std::uint16_t port) {
  raw_client client(port);
  const auto r = client.request("GET", "/plaintext");
  return r && r->status == 200 && r->body == "Hello, World!";
}

std::vector<std::unique_ptr<raw_client>> connect_many(std::uint16_t port, std::size_t n) {
  std::vector<std::unique_ptr<raw_client>> out;
  for (std::size_t i = 0; i < n; ++i) out.push_back(std::make_unique<raw_client>(port));
  return out;
}

TEST(FairLimits, ANewClientIsServedPastSilentConnectionsClosingTheOldest) {
  limited_server s(20);
  auto silent = connect_many(s.port(), 20);
  ASSERT_TRUE(eventually([&] { return s.open() == 20; }));
  EXPECT_TRUE(served(s.port()));
  EXPECT_EQ(closed_for(*s.metrics, "evicted_silent"), 1);
  EXPECT_TRUE(silent.front()->wait_closed(2s)) << "not the one that waited longest";
  for (std::size_t i = 1; i < silent.size(); ++i) EXPECT_TRUE(silent[i]->quiet_for(1ms)) << i;
}

TEST(FairLimits, APartialHeadIsClosedBeforeAnIdleKeepAlive) {
  limited_server s(3);
  raw_client idle(s.port());
  ASSERT_TRUE(idle.request("GET", "/plaintext"));
  raw_client partial(s.port());
  ASSERT_TRUE(partial.send("GET /plaintext HTTP/1.1\r\nHo"));
  raw_client other_idle(s.port());
  ASSERT_TRUE(other_idle.request("GET", "/plaintext"));
  ASSERT_TRUE(eventually([&] { return s.open() == 3; }));
  // Only a connection whose bytes the server has read is evictable (bytes
  // still in the kernel are a request on its way): give a loaded machine
  // time to read the partial head. Not a timing assertion: a slow read only
  // makes the test wait, never pass wrongly.
  std::this_thread::sleep_for(200ms);
  EXPECT_TRUE(served(s.port()));
  EXPECT_TRUE(partial.wait_closed(2s));
  EXPECT_EQ(closed_for(*s.metrics, "evicted_partial"), 1);
  // At the limit again with only idle keep-alives, the oldest of them makes
  // room (once the server has seen the served client go: until then it is
  // the fourth connection, and the third idle one would be the newcomer).
  ASSERT_TRUE(eventually([&] { return s.open() == 2; }));
  raw_client third_idle(s.port());
  ASSERT_TRUE(third_idle.request("GET", "/plaintext"));
  ASSERT_TRUE(eventually([&] { return s.open() == 3; }));
  EXPECT_TRUE(served(s.port()));
  EXPECT_TRUE(idle.wait_closed(2s));
  EXPECT_EQ(closed_for(*s.metrics, "evicted_idle"), 1);
  EXPECT_TRUE(other_idle.request("GET", "/plaintext"));
}

// At the limit with every silent connection still within its grace, the
// newcomers wait only until the oldest has waited it out (the limit is
// re-checked then, not at the next close), and each keeps its connection: the
// silent ones give way, the idle normal ones are left alone.
TEST(FairLimits, NewcomersAtTheLimitAreServedOnceTheGracePasses) {
  limited_server s(5, 0, {}, 300ms);
  auto silent = connect_many(s.port(), 5);
  ASSERT_TRUE(eventually([&] { return s.open() == 5; }));
  std::vector<std::unique_ptr<raw_client>> kept;
  for (int i = 0; i < 3; ++i) {
    kept.push_back(std::make_unique<raw_client>(s.port()));
    const auto r = kept.back()->request("GET", "/plaintext");
    ASSERT_TRUE(r && r->status == 200) << "newcomer " << i << " not served";
  }
  for (std::size_t i = 0; i < kept.size(); ++i) {
    const auto r = kept[i]->request("GET", "/plaintext");
    EXPECT_TRUE(r && r->status == 200) << "kept connection " << i << " was closed";
  }
  EXPECT_GE(closed_for(*s.metrics, "evicted_silent"), 2);
  EXPECT_EQ(closed_for(*s.metrics, "evicted_idle"), 0);
}

// Connections younger than eviction_grace (here all: each is connected before
// any sends, so the limit is reached before the requests arrive) are never
// closed to make room: the newcomer waits in the backlog until one finishes.
TEST(FairLimits, RequestsOnTheirWayAreNotEvicted) {
  limited_server s(8, 0, {}, 60s);
  auto clients = connect_many(s.port(), 24);
  for (std::size_t i = 0; i < clients.size(); ++i)
    ASSERT_TRUE(clients[i]->send("GET /plaintext HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"));
  std::size_t answered = 0;
  for (auto& c : clients) {
    const auto r = c->read_response(false, 10s);
    if (r && r->status == 200) ++answered;
  }
  EXPECT_EQ(answered, clients.size());
  EXPECT_EQ(closed_for(*s.metrics, "evicted_silent"), 0);
  EXPECT_EQ(closed_for(*s.metrics, "evicted_partial"), 0);
}

TEST(FairLimits, ASilentConnectionIsClosedAtTheFirstByteTimeout) {
  auto metrics = std::make_shared<stet::metrics>();
  stet::server_options o = stet::test::test_options();
  o.first_byte_timeout = 100ms;
  o.metrics = metrics;
  running_server server(plain_routes(), o);
  raw_client silent(server.port());
  EXPECT_TRUE(silent.wait_closed(5s));
  EXPECT_TRUE(eventually([&] { return closed_for(*metrics, "first_byte_timeout") == 1; }));
  // A client that began a request has header_timeout, counted from its first byte.
  raw_client started(server.port());
  ASSERT_TRUE(started.send("GET /plaintext HTTP/1.1\r\n"));
  EXPECT_TRUE(started.quiet_for(300ms));
  ASSERT_TRUE(started.send("Host: x\r\n\r\n"));
  const auto r = started.read_response();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
}

TEST(FairLimits, ConnectionsPerAddressAreLimitedAndCounted) {
  limited_server s(100, 2);
  raw_client a(s.port());
  raw_client b(s.port());
  ASSERT_TRUE(a.request("GET", "/plaintext"));
  ASSERT_TRUE(b.request("GET", "/plaintext"));
  raw_client third(s.port());
  EXPECT_TRUE(third.wait_closed(2s));
  EXPECT_TRUE(eventually([&] { return closed_for(*s.metrics, "per_address") == 1; }));
  b.shutdown_write();
  EXPECT_TRUE(b.wait_closed(2s));
  ASSERT_TRUE(eventually([&] { return s.open() == 1; }));
  EXPECT_TRUE(served(s.port()));  // a slot of that address is free again
}

TEST(FairLimits, ATrustedProxyIsExemptFromThePerAddressLimit) {
  limited_server s(100, 1, {"127.0.0.1"});
  raw_client a(s.port());
  raw_client b(s.port());
  EXPECT_TRUE(a.request("GET", "/plaintext"));
  EXPECT_TRUE(b.request("GET", "/plaintext"));
  EXPECT_EQ(closed_for(*s.metrics, "per_address"), 0);
}

}  // namespace
