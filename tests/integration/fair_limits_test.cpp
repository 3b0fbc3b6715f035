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
#include "support/tls_certs.hpp"
#include "support/tls_client.hpp"
#include "support/tls_server.hpp"

#include <gtest/gtest.h>

#include <openssl/bio.h>
#include <openssl/ssl.h>
#include <sys/socket.h>

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

// A partial head or hello waits from its first byte, and two workers read the
// bytes of clients that sent within the same millisecond in no defined order:
// a gap between the sends makes "the one that waited longest" the first.
void send_one_after_another(std::vector<std::unique_ptr<raw_client>>& clients, std::string_view bytes) {
  for (auto& c : clients) {
    ASSERT_TRUE(c->send(bytes));
    std::this_thread::sleep_for(10ms);
  }
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
  EXPECT_TRUE(eventually([&] { return closed_for(*s.metrics, "evicted_silent") >= 2; }));
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

// The first flight of a real TLS client (its ClientHello), as bytes.
std::string client_hello() {
  SSL_CTX* ctx = SSL_CTX_new(TLS_client_method());
  SSL* ssl = SSL_new(ctx);
  SSL_set_bio(ssl, BIO_new(BIO_s_mem()), BIO_new(BIO_s_mem()));
  SSL_set_connect_state(ssl);
  (void)SSL_do_handshake(ssl);  // wants the server's answer, having written its hello
  std::string hello(16 * 1024, '\0');
  const int n = BIO_read(SSL_get_wbio(ssl), hello.data(), static_cast<int>(hello.size()));
  hello.resize(static_cast<std::size_t>(n > 0 ? n : 0));
  SSL_free(ssl);
  SSL_CTX_free(ctx);
  return hello;
}

// A plain listener (index 0) and a TLS one (index 1), both at max_connections
// together; every timeout (the handshake's too) far longer than any wait here,
// so only eviction can make room.
struct limited_tls_server {
  stet::test::tls_fixture certs;
  stet::test::cert_files site = certs.issue("site", stet::test::for_names({"localhost"}));
  std::shared_ptr<stet::metrics> metrics = std::make_shared<stet::metrics>();
  running_server server;

  explicit limited_tls_server(std::size_t max, bool proxied = false) : server(plain_routes(), options(max, proxied)) {}
  stet::server_options options(std::size_t max, bool proxied) {
    stet::tls_options tls = stet::test::tls_settings(site);
    tls.handshake_timeout = 60s;
    stet::server_options o = stet::test::tls_server_options(std::move(tls));
    o.max_connections = max;
    o.eviction_grace = {};
    o.first_byte_timeout = o.header_timeout = o.idle_timeout = 60s;
    o.drain_timeout = 500ms;
    for (stet::listen_options& l : o.listeners) l.proxy_protocol = proxied;
    o.metrics = metrics;
    return o;
  }
  std::uint16_t plain_port() noexcept { return server.get().port(0); }
  std::uint16_t tls_port() noexcept { return server.get().port(1); }
  std::size_t open() noexcept { return server.get().open_connections(); }
  /// A new TLS client (after `header`, if any) completes its handshake and is answered.
  bool served_over_tls(std::string_view header = {}) {
    stet::test::tls_client_options o;
    o.ca_file = certs.ca_file();
    stet::test::tls_client client(tls_port(), o);
    if (!header.empty() && ::send(client.fd(), header.data(), header.size(), MSG_NOSIGNAL) != std::ssize(header)) {
      return false;
    }
    if (!client.handshake(10s)) return false;
    const auto r = client.request("GET", "/plaintext");
    return r && r->status == 200 && r->body == "Hello, World!";
  }
};

// Connections stalled halfway through their ClientHello wait for input as a
// partial head does: at the limit they make room for new clients, plain and
// TLS, instead of holding them in the backlog until a timeout.
TEST(FairLimits, HalfClientHellosMakeRoomAtTheLimit) {
  limited_tls_server s(20);
  const std::string hello = client_hello();
  ASSERT_GT(hello.size(), 100u);
  const std::string_view half = std::string_view(hello).substr(0, hello.size() / 2);
  auto stalled = connect_many(s.tls_port(), 30);  // ten more than the limit: they wait in the backlog
  send_one_after_another(stalled, half);
  // Give a loaded machine time to read the half hellos (see APartialHeadIsClosedBeforeAnIdleKeepAlive).
  std::this_thread::sleep_for(300ms);
  EXPECT_TRUE(served(s.plain_port()));
  EXPECT_TRUE(s.served_over_tls());
  // A newcomer is admitted as its eviction is posted to a worker: the count may trail the answer.
  EXPECT_TRUE(eventually(
      [&] { return closed_for(*s.metrics, "evicted_silent") + closed_for(*s.metrics, "evicted_partial") >= 2; }));
  EXPECT_TRUE(stalled.front()->wait_closed(2s)) << "not the one that waited longest";
}

// Behind a PROXY header the same: a half ClientHello after a complete header
// makes room at the limit.
TEST(FairLimits, HalfClientHellosBehindAProxyHeaderMakeRoomAtTheLimit) {
  limited_tls_server s(10, true);
  const std::string hello = client_hello();
  const std::string_view half = std::string_view(hello).substr(0, hello.size() / 2);
  const std::string header = "PROXY TCP4 198.51.100.20 127.0.0.1 52000 443\r\n";
  auto stalled = connect_many(s.tls_port(), 10);
  for (auto& c : stalled) ASSERT_TRUE(c->send(header + std::string(half)));
  ASSERT_TRUE(eventually([&] { return s.open() == 10; }));
  std::this_thread::sleep_for(300ms);
  raw_client plain(s.plain_port());
  ASSERT_TRUE(plain.send(header + "GET /plaintext HTTP/1.1\r\nHost: x\r\n\r\n"));
  const auto r = plain.read_response(false, 10s);
  EXPECT_TRUE(r && r->status == 200);
  EXPECT_TRUE(s.served_over_tls(header));
  // A newcomer is admitted as its eviction is posted to a worker: the count may trail the answer.
  EXPECT_TRUE(eventually(
      [&] { return closed_for(*s.metrics, "evicted_silent") + closed_for(*s.metrics, "evicted_partial") >= 2; }));
}

// Connections still reading their PROXY header are evicted as partial heads.
TEST(FairLimits, PartialProxyHeadersMakeRoomAtTheLimit) {
  limited_tls_server s(10, true);
  auto stalled = connect_many(s.plain_port(), 10);
  send_one_after_another(stalled, "PROXY TCP4 198.51.100.2");
  ASSERT_TRUE(eventually([&] { return s.open() == 10; }));
  std::this_thread::sleep_for(300ms);
  const std::string header = "PROXY TCP4 198.51.100.21 127.0.0.1 52001 443\r\n";
  raw_client plain(s.plain_port());
  ASSERT_TRUE(plain.send(header + "GET /plaintext HTTP/1.1\r\nHost: x\r\n\r\n"));
  const auto r = plain.read_response(false, 10s);
  EXPECT_TRUE(r && r->status == 200);
  EXPECT_TRUE(s.served_over_tls(header));
  EXPECT_TRUE(eventually([&] { return closed_for(*s.metrics, "evicted_partial") >= 2; }));  // see above
  EXPECT_TRUE(stalled.front()->wait_closed(2s)) << "not the one that waited longest";
}

}  // namespace
