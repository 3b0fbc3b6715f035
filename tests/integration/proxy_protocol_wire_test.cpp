// PROXY protocol on a listener that requires it: the address the header
// carries becomes remote_endpoint(), the request after it is served (however
// the header is cut), and anything else is closed silently and counted.

#include <stet/stet.hpp>

#include "support/expectations.hpp"
#include "support/http_client.hpp"
#include "support/metric_value.hpp"
#include "support/test_server.hpp"

#include <gtest/gtest.h>

#include <array>
#include <chrono>
#include <future>
#include <memory>
#include <string>
#include <thread>

namespace {

using namespace std::chrono_literals;
using stet::test::closed_for;
using stet::test::eventually;
using stet::test::raw_client;
using stet::test::running_server;

stet::router peer_routes() {
  stet::router r;
  r.get("/peer", [](stet::request& req) {
    const stet::endpoint& e = req.remote_endpoint();
    return stet::response::text(e.address_string() + ":" + std::to_string(e.port()) + " " +
                                std::string(req.client_address_text()));
  });
  return r;
}

struct proxied_server {
  std::shared_ptr<stet::metrics> metrics = std::make_shared<stet::metrics>();
  running_server server;

  explicit proxied_server(std::vector<std::string> trusted = {}, std::chrono::milliseconds first_byte = 2000ms,
                          std::chrono::milliseconds long_timeouts = 2000ms)
      : server(peer_routes(), options(std::move(trusted), first_byte, long_timeouts, metrics)) {}
  static stet::server_options options(std::vector<std::string> trusted, std::chrono::milliseconds first_byte,
                                      std::chrono::milliseconds long_timeouts, std::shared_ptr<stet::metrics> m) {
    stet::server_options o = stet::test::test_options();
    o.listeners = {{"127.0.0.1:0", 0660, true}};
    o.trusted_proxies = std::move(trusted);
    o.first_byte_timeout = first_byte;
    o.header_timeout = long_timeouts;
    o.drain_timeout = long_timeouts;
    o.metrics = std::move(m);
    return o;
  }
  std::uint16_t port() const noexcept { return server.port(); }
};

constexpr std::string_view get_peer = "GET /peer HTTP/1.1\r\nHost: x\r\n\r\n";

std::string v2_tcp4(std::array<std::uint8_t, 4> source, std::uint16_t port) {
  std::string h("\r\n\r\n\0\r\nQUIT\n", 12);
  h += '\x21';  // version 2, PROXY
  h += '\x11';  // AF_INET, STREAM
  h += std::string("\0\x0c", 2);
  for (std::uint8_t b : source) h += static_cast<char>(b);
  h += std::string("\x7f\0\0\x01", 4);
  h += static_cast<char>(port >> 8);
  h += static_cast<char>(port & 0xff);
  h += std::string("\x1f\x90", 2);
  return h;
}

TEST(ProxyProtocolWire, AV1HeaderGivesTheRemoteEndpoint) {
  proxied_server s;
  raw_client client(s.port());
  ASSERT_TRUE(client.send("PROXY TCP4 198.51.100.7 127.0.0.1 51000 8080\r\n" + std::string(get_peer)));
  const auto r = client.read_response();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->body, "198.51.100.7:51000 198.51.100.7");
  // The header came once: the next request on the connection is plain HTTP.
  const auto again = client.request("GET", "/peer");
  ASSERT_TRUE(again);
  EXPECT_EQ(again->body, "198.51.100.7:51000 198.51.100.7");
}

TEST(ProxyProtocolWire, AV2HeaderCutIntoPiecesAndTheRequestLater) {
  proxied_server s;
  raw_client client(s.port());
  const std::string header = v2_tcp4({203, 0, 113, 5}, 40001);
  for (std::size_t at = 0; at < header.size(); at += 5) {
    ASSERT_TRUE(client.send(std::string_view(header).substr(at, 5)));
    std::this_thread::sleep_for(2ms);
  }
  std::this_thread::sleep_for(20ms);
  ASSERT_TRUE(client.send(get_peer));
  const auto r = client.read_response();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->body, "203.0.113.5:40001 203.0.113.5");
}

TEST(ProxyProtocolWire, ALocalHeaderKeepsTheSocketsPeer) {
  proxied_server s;
  raw_client client(s.port());
  std::string local("\r\n\r\n\0\r\nQUIT\n\x20\x00\x00\x00", 16);
  ASSERT_TRUE(client.send(local + std::string(get_peer)));
  const auto r = client.read_response();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->body.substr(0, 10), "127.0.0.1:");
}

TEST(ProxyProtocolWire, NoHeaderIsClosedSilentlyAndCounted) {
  proxied_server s;
  raw_client client(s.port());
  ASSERT_TRUE(client.send(get_peer));
  EXPECT_EQ(client.read_until_close(2s), "");
  EXPECT_TRUE(eventually([&] { return closed_for(*s.metrics, "proxy_protocol") == 1; }));
  raw_client garbage(s.port());
  ASSERT_TRUE(garbage.send("PROXY TCP4 not-an-address 127.0.0.1 1 2\r\n"));
  EXPECT_EQ(garbage.read_until_close(2s), "");
  EXPECT_TRUE(eventually([&] { return closed_for(*s.metrics, "proxy_protocol") == 2; }));
  EXPECT_TRUE(eventually([&] { return s.server.get().open_connections() == 0; }));
}

TEST(ProxyProtocolWire, ASilentConnectionIsClosedAtTheFirstByteTimeout) {
  proxied_server s({}, 100ms);
  raw_client silent(s.port());
  EXPECT_TRUE(silent.wait_closed(3s));
  EXPECT_TRUE(eventually([&] { return closed_for(*s.metrics, "first_byte_timeout") == 1; }));
  raw_client partial(s.port());
  ASSERT_TRUE(partial.send("PROXY TCP4 "));
  EXPECT_TRUE(partial.wait_closed(5s));  // header_timeout (2 s in tests) from its first byte
  EXPECT_TRUE(eventually([&] { return closed_for(*s.metrics, "header_timeout") == 1; }));
}

TEST(ProxyProtocolWire, TheProxiedAddressIsTheOneTrustIsAskedAbout) {
  proxied_server s({"198.51.100.0/24"});
  raw_client client(s.port());
  ASSERT_TRUE(
      client.send("PROXY TCP4 198.51.100.7 127.0.0.1 51000 8080\r\n"
                  "GET /peer HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: 192.0.2.44\r\n\r\n"));
  const auto r = client.read_response();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->body, "198.51.100.7:51000 192.0.2.44");
}

// The intake is no connection yet, but the drain closes it too: otherwise the
// stop would wait for its header timeout (a minute here).
TEST(ProxyProtocolWire, StopClosesConnectionsStillReadingTheHeader) {
  auto s = std::make_unique<proxied_server>(std::vector<std::string>{}, 60s, 60s);
  raw_client silent(s->port());
  ASSERT_TRUE(silent.send("PROX"));
  ASSERT_TRUE(eventually([&] { return s->server.get().open_connections() == 1; }));
  auto stopped = std::async(std::launch::async, [&] { s.reset(); });  // stop() and wait()
  EXPECT_EQ(stopped.wait_for(30s), std::future_status::ready);
  stopped.wait();
  EXPECT_TRUE(silent.wait_closed(1s));
}

}  // namespace
