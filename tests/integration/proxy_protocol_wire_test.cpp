// PROXY protocol on a listener that requires it: the address the header
// carries becomes remote_endpoint(), the request after it is served (however
// the header is cut), and anything else is closed silently and counted.

#include <stet/stet.hpp>

#include "support/expectations.hpp"
#include "support/http_client.hpp"
#include "support/metric_value.hpp"
#include "support/test_server.hpp"

#include <gtest/gtest.h>

#include <sys/resource.h>

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

// CPU time of this whole process (the server runs in it) since it started.
std::chrono::microseconds process_cpu() {
  rusage usage{};
  ::getrusage(RUSAGE_SELF, &usage);
  const auto at = [](const timeval& t) {
    return std::chrono::seconds(t.tv_sec) + std::chrono::microseconds(t.tv_usec);
  };
  return at(usage.ru_utime) + at(usage.ru_stime);
}

// A header that stops short must leave the worker asleep until more comes: the
// bytes it already has are no news. A worker that keeps waking for them spins
// (a whole core) until the header timeout, here far away.
TEST(ProxyProtocolWire, AnIncompleteHeaderWaitsWithoutSpinning) {
  proxied_server s({}, 30s, 30s);
  raw_client client(s.port());
  ASSERT_TRUE(client.send("PROXY TCP4 198.51.100.9 127.0.0.1 5100"));
  ASSERT_TRUE(eventually([&] { return s.server.get().open_connections() == 1; }));
  std::this_thread::sleep_for(50ms);  // the intake has seen the bytes
  const auto cpu_before = process_cpu();
  const auto wall_before = std::chrono::steady_clock::now();
  std::this_thread::sleep_for(1s);
  const auto cpu = process_cpu() - cpu_before;
  const auto wall = std::chrono::steady_clock::now() - wall_before;
  // Generous: a spinning worker takes about 100 % of the wall time.
  EXPECT_LT(cpu, wall * 3 / 10) << "the server used " << cpu.count() << " us of CPU in "
                                << std::chrono::duration_cast<std::chrono::microseconds>(wall).count() << " us";
  ASSERT_TRUE(client.send("0 8080\r\n" + std::string(get_peer)));
  const auto r = client.read_response();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->body, "198.51.100.9:51000 198.51.100.9");
}

// One byte per segment, the request riding with the header's last byte: the
// intake takes the header and not a byte more.
TEST(ProxyProtocolWire, AV1HeaderSentByteByByteThenTheRequestInItsLastSegment) {
  proxied_server s;
  raw_client client(s.port());
  const std::string header = "PROXY TCP4 198.51.100.10 127.0.0.1 51010 8080\r\n";
  for (std::size_t at = 0; at + 1 < header.size(); ++at) {
    ASSERT_TRUE(client.send(std::string_view(header).substr(at, 1)));
    std::this_thread::sleep_for(1ms);
  }
  ASSERT_TRUE(client.send("\n" + std::string(get_peer)));
  const auto r = client.read_response();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->body, "198.51.100.10:51010 198.51.100.10");
  const auto again = client.request("GET", "/peer");
  ASSERT_TRUE(again);
  EXPECT_EQ(again->body, "198.51.100.10:51010 198.51.100.10");
}

TEST(ProxyProtocolWire, AV2HeaderSentByteByByte) {
  proxied_server s;
  raw_client client(s.port());
  const std::string header = v2_tcp4({203, 0, 113, 6}, 40002);
  for (char byte : header) {
    ASSERT_TRUE(client.send(std::string_view(&byte, 1)));
    std::this_thread::sleep_for(1ms);
  }
  ASSERT_TRUE(client.send(get_peer));
  const auto r = client.read_response();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->body, "203.0.113.6:40002 203.0.113.6");
}

// A header cut short and never finished still ends at header_timeout, counted
// from its first byte however many pieces came.
TEST(ProxyProtocolWire, AHeaderStillIncompleteAfterSeveralPiecesTimesOut) {
  proxied_server s({}, 2000ms, 300ms);
  raw_client client(s.port());
  ASSERT_TRUE(client.send("PROXY "));
  std::this_thread::sleep_for(20ms);
  ASSERT_TRUE(client.send("TCP4 "));
  EXPECT_TRUE(client.wait_closed(5s));
  EXPECT_TRUE(eventually([&] { return closed_for(*s.metrics, "header_timeout") == 1; }));
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
