// PROXY protocol in front of TLS (a layer-4 balancer passing TLS through with
// send-proxy): the header comes first on the raw socket, the ClientHello after
// it, and the address the header carries becomes remote_endpoint() of the
// HTTPS requests. A ClientHello with no header first is closed and counted.

#include <stet/stet.hpp>

#include "support/expectations.hpp"
#include "support/metric_value.hpp"
#include "support/test_server.hpp"
#include "support/tls_certs.hpp"
#include "support/tls_client.hpp"
#include "support/tls_server.hpp"

#include <gtest/gtest.h>

#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <thread>

namespace {

using namespace std::chrono_literals;
using stet::test::closed_for;
using stet::test::eventually;
using stet::test::running_server;
using stet::test::tls_client;
using stet::test::tls_client_options;
using stet::test::tls_fixture;

stet::router peer_routes() {
  stet::router r;
  r.get("/peer", [](stet::request& req) {
    const stet::endpoint& e = req.remote_endpoint();
    return stet::response::text(e.address_string() + ":" + std::to_string(e.port()) + " " +
                                (req.is_secure() ? "https" : "http"));
  });
  return r;
}

class ProxyProtocolTls : public ::testing::Test {
 protected:
  tls_fixture certs;
  stet::test::cert_files site = certs.issue("site", stet::test::for_names({"localhost"}));
  std::shared_ptr<stet::metrics> metrics = std::make_shared<stet::metrics>();
  running_server server{peer_routes(), options()};

  stet::server_options options() {
    stet::server_options o = stet::test::test_options();
    stet::listen_options secure{"127.0.0.1:0"};
    secure.proxy_protocol = true;
    secure.tls = std::make_shared<const stet::tls_options>(stet::test::tls_settings(site));
    o.listeners = {std::move(secure)};
    o.metrics = metrics;
    return o;
  }
  tls_client_options verified() const {
    tls_client_options o;
    o.ca_file = certs.ca_file();
    return o;
  }
  /// Sends `header` on the raw socket, then runs the handshake and asks /peer.
  std::string peer_behind(std::string_view header) {
    tls_client client(server.port(), verified());
    const auto sent = ::send(client.fd(), header.data(), header.size(), MSG_NOSIGNAL);
    if (sent != static_cast<ssize_t>(header.size()) || !client.handshake()) return "no handshake: " + client.error();
    const auto r = client.request("GET", "/peer");
    return r && r->status == 200 ? r->body : "no answer";
  }
};

TEST_F(ProxyProtocolTls, AV1HeaderBeforeTheHandshakeGivesTheRemoteEndpoint) {
  EXPECT_EQ(peer_behind("PROXY TCP4 198.51.100.7 127.0.0.1 51000 443\r\n"), "198.51.100.7:51000 https");
}

TEST_F(ProxyProtocolTls, AV2HeaderBeforeTheHandshakeGivesTheRemoteEndpoint) {
  std::string v2("\r\n\r\n\0\r\nQUIT\n", 12);
  v2 += std::string("\x21\x11\x00\x0c", 4);                  // v2 PROXY, TCP over IPv4, 12 address bytes
  v2 += std::string("\xcb\x00\x71\x09\x7f\x00\x00\x01", 8);  // 203.0.113.9 -> 127.0.0.1
  v2 += std::string("\xc3\x50\x01\xbb", 4);                  // 50000 -> 443
  EXPECT_EQ(peer_behind(v2), "203.0.113.9:50000 https");
}

TEST_F(ProxyProtocolTls, AHandshakeWithoutAHeaderIsClosedAndCounted) {
  tls_client client(server.port(), verified());
  EXPECT_FALSE(client.handshake());
  EXPECT_TRUE(eventually([&] { return closed_for(*metrics, "proxy_protocol") == 1; }));
  // The listener still serves the next proxied client.
  EXPECT_EQ(peer_behind("PROXY TCP4 198.51.100.8 127.0.0.1 51001 443\r\n"), "198.51.100.8:51001 https");
}

TEST_F(ProxyProtocolTls, AHeaderSentByteByByteThenTheHandshake) {
  tls_client client(server.port(), verified());
  const std::string_view header = "PROXY TCP4 198.51.100.9 127.0.0.1 51002 443\r\n";
  for (char byte : header) {
    ASSERT_EQ(::send(client.fd(), &byte, 1, MSG_NOSIGNAL), 1);
    std::this_thread::sleep_for(1ms);
  }
  ASSERT_TRUE(client.handshake()) << client.error();
  const auto r = client.request("GET", "/peer");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->body, "198.51.100.9:51002 https");
}

// Every kind of listener takes the header when told to: plain, TLS (the
// header before the ClientHello) and unix alike, as stet-server's
// --proxy-protocol promises for all of its listeners.
class ProxyProtocolEverywhere : public ::testing::Test {
 protected:
  tls_fixture certs;
  stet::test::cert_files site = certs.issue("site", stet::test::for_names({"localhost"}));
  std::string unix_path = ::testing::TempDir() + "stet-proxy-everywhere-" + std::to_string(::getpid()) + ".sock";
  std::shared_ptr<stet::metrics> metrics = std::make_shared<stet::metrics>();
  running_server server{peer_routes(), options()};

  stet::server_options options() {
    stet::server_options o = stet::test::tls_server_options(stet::test::tls_settings(site));
    o.listeners.push_back({"unix:" + unix_path});
    for (stet::listen_options& l : o.listeners) l.proxy_protocol = true;
    o.metrics = metrics;
    return o;
  }
  std::uint16_t plain_port() noexcept { return server.get().port(0); }
  std::uint16_t tls_port() noexcept { return server.get().port(1); }
  std::string peer_behind(std::string_view header) {
    tls_client_options o;
    o.ca_file = certs.ca_file();
    tls_client client(tls_port(), o);
    const auto sent = ::send(client.fd(), header.data(), header.size(), MSG_NOSIGNAL);
    if (sent != static_cast<ssize_t>(header.size()) || !client.handshake()) return "no handshake: " + client.error();
    const auto r = client.request("GET", "/peer");
    return r && r->status == 200 ? r->body : "no answer";
  }
  // `bytes` on a new unix-socket connection; what came back until the server closed.
  std::string over_unix(std::string_view bytes) {
    const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un at{};
    at.sun_family = AF_UNIX;
    unix_path.copy(at.sun_path, sizeof at.sun_path - 1);
    timeval limit{5, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
    if (::connect(fd, reinterpret_cast<const sockaddr*>(&at), sizeof at) != 0) {
      ::close(fd);
      return "connect failed";
    }
    (void)::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    std::string answer;
    char buffer[4096];
    for (ssize_t n; (n = ::recv(fd, buffer, sizeof buffer, 0)) > 0;) answer.append(buffer, static_cast<std::size_t>(n));
    ::close(fd);
    return answer;
  }
};

TEST_F(ProxyProtocolEverywhere, TheTlsListenerTakesAV1Header) {
  EXPECT_EQ(peer_behind("PROXY TCP4 198.51.100.7 127.0.0.1 51000 443\r\n"), "198.51.100.7:51000 https");
}

TEST_F(ProxyProtocolEverywhere, TheTlsListenerTakesAV2Header) {
  std::string v2("\r\n\r\n\0\r\nQUIT\n", 12);
  v2 += std::string("\x21\x11\x00\x0c", 4);
  v2 += std::string("\xcb\x00\x71\x0a\x7f\x00\x00\x01", 8);  // 203.0.113.10 -> 127.0.0.1
  v2 += std::string("\xc3\x51\x01\xbb", 4);                  // 50001 -> 443
  EXPECT_EQ(peer_behind(v2), "203.0.113.10:50001 https");
}

TEST_F(ProxyProtocolEverywhere, ATlsClientWithoutAHeaderIsRefused) {
  tls_client_options o;
  o.ca_file = certs.ca_file();
  tls_client client(tls_port(), o);
  EXPECT_FALSE(client.handshake());
  EXPECT_TRUE(eventually([&] { return closed_for(*metrics, "proxy_protocol") == 1; }));
}

TEST_F(ProxyProtocolEverywhere, ThePlainAndUnixListenersTakeTheHeaderToo) {
  stet::test::raw_client plain(plain_port());
  ASSERT_TRUE(plain.send("PROXY TCP4 198.51.100.11 127.0.0.1 51011 80\r\nGET /peer HTTP/1.1\r\nHost: x\r\n\r\n"));
  const auto r = plain.read_response();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->body, "198.51.100.11:51011 http");
  stet::test::raw_client bare(plain_port());
  ASSERT_TRUE(bare.send("GET /peer HTTP/1.1\r\nHost: x\r\n\r\n"));
  EXPECT_EQ(bare.read_until_close(2s), "");
  const std::string proxied = over_unix(
      "PROXY TCP4 198.51.100.12 127.0.0.1 51012 80\r\nGET /peer HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  EXPECT_NE(proxied.find("198.51.100.12:51012 http"), std::string::npos) << proxied;
  EXPECT_EQ(over_unix("GET /peer HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"), "");
  EXPECT_TRUE(eventually([&] { return closed_for(*metrics, "proxy_protocol") == 2; }));
}

}  // namespace
