// HTTPS listeners with a real TLS peer: the handshake, keep-alive and
// pipelining over TLS, ALPN, close_notify both ways, clients that speak plain
// HTTP or garbage to the TLS port, half-finished handshakes, and the same
// routes served on a plain listener beside it.

#include <stet/stet.hpp>

#include "support/expectations.hpp"
#include "support/http_client.hpp"
#include "support/metric_value.hpp"
#include "support/prometheus_check.hpp"
#include "support/tls_client.hpp"
#include "support/tls_server.hpp"

#include <gtest/gtest.h>

#include <sys/socket.h>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <string>
#include <vector>

namespace {

using stet::test::raw_client;
using stet::test::running_server;
using stet::test::tls_client;
using stet::test::tls_client_options;
using stet::test::tls_fixture;
using namespace std::chrono_literals;

stet::router routes(std::shared_ptr<stet::metrics> m = nullptr) {
  stet::router r;
  r.get("/hello", [](stet::request&) { return stet::response::text("hello\n"); });
  r.get("/scheme", [](stet::request& req) {
    const stet::tls_info* tls = req.tls();
    std::string text = req.is_secure() ? "https" : "http";
    if (tls != nullptr) {
      text += " " + std::string(tls->protocol) + " " + std::string(tls->cipher) +
              " sni=" + std::string(tls->server_name) + (tls->resumed ? " resumed" : " full");
    }
    return stet::response::text(text);
  });
  r.get("/big", [](stet::request&) { return stet::response::text(std::string(1 << 20, 'x')); });
  r.post("/echo", [](stet::request& req) { return stet::response::text(std::string(req.body())); });
  if (m) r.get("/-/metrics", [m](stet::request&) { return m->respond(); });
  return r;
}

struct errors {
  std::mutex mutex;
  std::vector<std::string> seen;
  std::function<void(const stet::server_error&)> reporter() {
    return [this](const stet::server_error& e) {
      std::lock_guard lock(mutex);
      seen.push_back(std::string(e.where) + ": " + std::string(e.detail));
    };
  }
};

class Tls : public ::testing::Test {
 protected:
  tls_fixture certs;
  stet::test::cert_files site = certs.issue("site", stet::test::for_names({"localhost", "www.example.test"}));

  tls_client_options verified() const {
    tls_client_options o;
    o.ca_file = certs.ca_file();
    return o;
  }
};

TEST_F(Tls, HandshakeThenKeepAliveRequests) {
  running_server s(routes(), stet::test::tls_server_options(stet::test::tls_settings(site)));
  tls_client c(s.get().port(1), verified());
  ASSERT_TRUE(c.handshake()) << c.error();
  EXPECT_EQ(c.protocol(), "TLSv1.3");
  EXPECT_EQ(c.alpn(), "http/1.1");
  EXPECT_EQ(c.peer_common_name(), "localhost");
  for (int i = 0; i < 3; ++i) {
    const auto r = c.request("GET", "/hello");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 200);
    EXPECT_EQ(r->body, "hello\n");
  }
  const auto scheme = c.request("GET", "/scheme");
  ASSERT_TRUE(scheme);
  EXPECT_EQ(scheme->body, "https TLSv1.3 " + c.cipher() + " sni=localhost full");
}

TEST_F(Tls, PlainListenerBesideItServesTheSameRoutesAsHttp) {
  running_server s(routes(), stet::test::tls_server_options(stet::test::tls_settings(site)));
  raw_client plain(s.get().port(0));
  const auto r = plain.request("GET", "/scheme");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->body, "http");
}

TEST_F(Tls, Tls12ClientIsServed) {
  running_server s(routes(), stet::test::tls_server_options(stet::test::tls_settings(site)));
  tls_client_options o = verified();
  o.max_version = TLS1_2_VERSION;
  tls_client c(s.get().port(1), o);
  ASSERT_TRUE(c.handshake()) << c.error();
  EXPECT_EQ(c.protocol(), "TLSv1.2");
  const auto r = c.request("GET", "/scheme");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->body.substr(0, 14), "https TLSv1.2 ");
}

// At its default security level the client's own OpenSSL would not offer
// TLS 1.1 at all; at level 0 it does, so only the listener's minimum refuses it.
TEST_F(Tls, Tls11ClientIsRefused) {
  auto m = std::make_shared<stet::metrics>();
  stet::server_options so = stet::test::tls_server_options(stet::test::tls_settings(site));
  so.metrics = m;
  running_server s(routes(m), so);
  tls_client_options o = verified();
  o.min_version = TLS1_1_VERSION;
  o.max_version = TLS1_1_VERSION;
  o.ciphers = "DEFAULT:@SECLEVEL=0";
  o.security_level = 0;
  tls_client c(s.get().port(1), o);
  EXPECT_FALSE(c.handshake());
  EXPECT_NE(c.error().find("protocol version"), std::string::npos) << c.error();  // the server's alert
  EXPECT_TRUE(stet::test::eventually([&] {
    return stet::test::metric_value(*m, R"(stet_tls_handshake_failures_total{reason="version"})") == 1;
  })) << m->text();
}

TEST_F(Tls, ClientWithoutAlpnIsServed) {
  running_server s(routes(), stet::test::tls_server_options(stet::test::tls_settings(site)));
  tls_client_options o = verified();
  o.alpn.clear();
  tls_client c(s.get().port(1), o);
  ASSERT_TRUE(c.handshake()) << c.error();
  EXPECT_EQ(c.alpn(), "");
  EXPECT_TRUE(c.request("GET", "/hello"));
}

TEST_F(Tls, H2OnlyClientGetsAHandshakeFailureNotAHang) {
  auto m = std::make_shared<stet::metrics>();
  stet::server_options o = stet::test::tls_server_options(stet::test::tls_settings(site));
  o.metrics = m;
  running_server s(routes(m), o);
  tls_client_options co = verified();
  co.alpn = {"h2"};
  tls_client c(s.get().port(1), co);
  const auto started = std::chrono::steady_clock::now();
  EXPECT_FALSE(c.handshake(5s));
  EXPECT_LT(std::chrono::steady_clock::now() - started, 4s);  // an alert, not the handshake timeout
  EXPECT_NE(c.error().find("no application protocol"), std::string::npos) << c.error();
  EXPECT_NE(
      stet::test::plain_get(s.get().port(0), "/-/metrics").find("stet_tls_handshake_failures_total{reason=\"alpn\"} 1"),
      std::string::npos);
}

TEST_F(Tls, PipelinedRequestsAreAnsweredInOrder) {
  running_server s(routes(), stet::test::tls_server_options(stet::test::tls_settings(site)));
  tls_client c(s.get().port(1), verified());
  ASSERT_TRUE(c.handshake()) << c.error();
  std::string burst;
  for (int i = 0; i < 20; ++i) {
    burst += "POST /echo HTTP/1.1\r\nHost: localhost\r\nContent-Length: " + std::to_string(std::to_string(i).size()) +
             "\r\n\r\n" + std::to_string(i);
  }
  ASSERT_TRUE(c.send(burst));
  for (int i = 0; i < 20; ++i) {
    const auto r = c.read_response();
    ASSERT_TRUE(r) << i;
    EXPECT_EQ(r->body, std::to_string(i));
  }
}

TEST_F(Tls, LargeBodiesGoBothWays) {
  running_server s(routes(), stet::test::tls_server_options(stet::test::tls_settings(site)));
  tls_client c(s.get().port(1), verified());
  ASSERT_TRUE(c.handshake()) << c.error();
  const auto big = c.request("GET", "/big");
  ASSERT_TRUE(big);
  EXPECT_EQ(big->body, std::string(1 << 20, 'x'));
  const std::string upload(300'000, 'u');
  const auto echoed = c.request("POST", "/echo", "", upload);
  ASSERT_TRUE(echoed);
  EXPECT_EQ(echoed->body, upload);
}

TEST_F(Tls, ConnectionCloseSendsCloseNotify) {
  running_server s(routes(), stet::test::tls_server_options(stet::test::tls_settings(site)));
  tls_client c(s.get().port(1), verified());
  ASSERT_TRUE(c.handshake()) << c.error();
  const auto r = c.request("GET", "/hello", "Connection: close\r\n");
  ASSERT_TRUE(r);
  EXPECT_TRUE(c.closed_with_notify());
}

TEST_F(Tls, PeerThatSkipsCloseNotifyIsNoError) {
  errors seen;
  stet::server_options o = stet::test::tls_server_options(stet::test::tls_settings(site));
  o.error_reporter = seen.reporter();
  {
    running_server s(routes(), o);
    for (int i = 0; i < 3; ++i) {
      tls_client c(s.get().port(1), verified());
      ASSERT_TRUE(c.handshake()) << c.error();
      ASSERT_TRUE(c.request("GET", "/hello"));
      ::shutdown(c.fd(), SHUT_RDWR);  // a browser's way: no close_notify
    }
    // A new connection is still served.
    tls_client after(s.get().port(1), verified());
    ASSERT_TRUE(after.handshake()) << after.error();
    ASSERT_TRUE(after.request("GET", "/hello"));
  }
  std::lock_guard lock(seen.mutex);
  EXPECT_TRUE(seen.seen.empty()) << seen.seen.front();
}

TEST_F(Tls, PlainHttpToTheTlsPortIsClosedNotServed) {
  auto m = std::make_shared<stet::metrics>();
  stet::server_options o = stet::test::tls_server_options(stet::test::tls_settings(site));
  o.metrics = m;
  running_server s(routes(m), o);
  raw_client c(s.get().port(1));
  ASSERT_TRUE(c.send("GET /hello HTTP/1.1\r\nHost: localhost\r\n\r\n"));
  const std::string answer = c.read_until_close(3s);
  EXPECT_EQ(answer.find("hello"), std::string::npos);
  EXPECT_EQ(answer.find("HTTP/1.1 200"), std::string::npos);
  EXPECT_TRUE(c.peer_closed());
  EXPECT_NE(stet::test::plain_get(s.get().port(0), "/-/metrics")
                .find("stet_tls_handshake_failures_total{reason=\"plain_http\"} 1"),
            std::string::npos);
}

TEST_F(Tls, GarbageClientHelloIsClosed) {
  running_server s(routes(), stet::test::tls_server_options(stet::test::tls_settings(site)));
  raw_client c(s.get().port(1));
  // A handshake record header announcing a ClientHello, then nonsense.
  std::string garbage("\x16\x03\x01\x00\x40\x01\x00\x00\x3c", 9);
  garbage += std::string(60, '\xee');
  ASSERT_TRUE(c.send(garbage));
  EXPECT_TRUE(c.wait_closed(3s) || c.peer_closed());
  tls_client good(s.get().port(1), verified());
  EXPECT_TRUE(good.handshake()) << good.error();
}

TEST_F(Tls, HandshakeThatStopsHalfWayIsClosedAtTheTimeout) {
  auto m = std::make_shared<stet::metrics>();
  stet::tls_options t = stet::test::tls_settings(site);
  t.handshake_timeout = std::chrono::milliseconds(1000);
  stet::server_options o = stet::test::tls_server_options(t);
  o.metrics = m;
  running_server s(routes(m), o);
  raw_client silent(s.get().port(1));
  // The first bytes of a record header, then nothing.
  ASSERT_TRUE(silent.send(std::string("\x16\x03\x01", 3)));
  // Other clients are served meanwhile.
  tls_client other(s.get().port(1), verified());
  ASSERT_TRUE(other.handshake()) << other.error();
  ASSERT_TRUE(other.request("GET", "/hello"));
  EXPECT_TRUE(silent.wait_closed(5s));
  EXPECT_NE(stet::test::plain_get(s.get().port(0), "/-/metrics")
                .find("stet_tls_handshake_failures_total{reason=\"timeout\"} 1"),
            std::string::npos);
}

TEST_F(Tls, MetricsCountHandshakesByProtocolAndCipher) {
  auto m = std::make_shared<stet::metrics>();
  stet::server_options o = stet::test::tls_server_options(stet::test::tls_settings(site));
  o.metrics = m;
  running_server s(routes(m), o);
  tls_client c(s.get().port(1), verified());
  ASSERT_TRUE(c.handshake()) << c.error();
  const auto r = c.request("GET", "/-/metrics");
  ASSERT_TRUE(r);
  const std::string& text = r->body;
  EXPECT_NE(text.find("stet_tls_handshakes_total{kind=\"full\"} 1"), std::string::npos);
  EXPECT_NE(text.find("stet_tls_connections_total{protocol=\"TLSv1.3\",cipher=\"" + c.cipher() + "\"} 1"),
            std::string::npos);
  EXPECT_NE(text.find("stet_tls_handshake_seconds_count 1"), std::string::npos);
  EXPECT_NE(text.find("stet_cache_hits_total{cache=\"tls_sessions\"}"), std::string::npos);
  const stet::test::prometheus_parse parsed = stet::test::check_prometheus_text(text);
  EXPECT_TRUE(parsed.errors.empty()) << parsed.errors.front();
}

TEST_F(Tls, AccessLogNamesProtocolAndCipherWhenAskedTo) {
  const std::filesystem::path log =
      std::filesystem::temp_directory_path() / ("stet-tls-access-" + std::to_string(::getpid()) + ".log");
  stet::server_options o = stet::test::tls_server_options(stet::test::tls_settings(site));
  o.access_log.enabled = true;
  o.access_log.path = log.string();
  o.access_log.tls_fields = true;
  std::string cipher;
  {
    running_server s(routes(), o);
    tls_client c(s.get().port(1), verified());
    ASSERT_TRUE(c.handshake()) << c.error();
    ASSERT_TRUE(c.request("GET", "/hello"));
    cipher = c.cipher();
    raw_client plain(s.get().port(0));
    ASSERT_TRUE(plain.request("GET", "/hello"));
  }  // stopping the server flushes the log
  std::ifstream in(log);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  std::filesystem::remove(log);
  ASSERT_EQ(lines.size(), 2u);
  std::sort(lines.begin(), lines.end(),
            [](const std::string& a, const std::string& b) { return a.ends_with(" - -") < b.ends_with(" - -"); });
  EXPECT_TRUE(lines[0].ends_with(" TLSv1.3 " + cipher)) << lines[0];
  EXPECT_TRUE(lines[1].ends_with(" - -")) << lines[1];
}

}  // namespace
