// Every reason a TLS handshake can fail for, provoked by a real peer over a
// real socket, each seen in stet_tls_handshake_failures_total under its own
// reason and under no other. (timeout, plain_http and alpn are provoked in
// tls_test.cpp beside the behaviour they belong to.)

#include <stet/stet.hpp>

#include "support/expectations.hpp"
#include "support/http_client.hpp"
#include "support/metric_value.hpp"
#include "support/tls_client.hpp"
#include "support/tls_server.hpp"

#include <gtest/gtest.h>

#include <sys/socket.h>

#include <array>
#include <chrono>
#include <memory>
#include <string>
#include <string_view>

namespace {

using stet::test::cert_files;
using stet::test::eventually;
using stet::test::raw_client;
using stet::test::running_server;
using stet::test::tls_client;
using stet::test::tls_client_options;
using stet::test::tls_fixture;
using namespace std::chrono_literals;

// Written out rather than taken from the library: a reason renamed, dropped or
// added there fails here.
constexpr std::array<std::string_view, 10> reasons = {"timeout", "closed",  "aborted", "plain_http",
                                                      "version", "cipher",  "alpn",    "client_certificate",
                                                      "refused", "protocol"};

stet::router routes() {
  stet::router r;
  r.get("/hello", [](stet::request&) { return stet::response::text("hello\n"); });
  return r;
}

class TlsFailures : public ::testing::Test {
 protected:
  tls_fixture certs;
  cert_files site = certs.issue("site", stet::test::for_names({"localhost"}));
  std::shared_ptr<stet::metrics> metrics = std::make_shared<stet::metrics>();

  stet::server_options options(stet::tls_options t = {}) {
    if (t.certificates.empty()) t = stet::test::tls_settings(site);
    stet::server_options o = stet::test::tls_server_options(std::move(t));
    o.metrics = metrics;
    return o;
  }
  tls_client_options verified() const {
    tls_client_options o;
    o.ca_file = certs.ca_file();
    return o;
  }

  double failures(std::string_view reason) const {
    return stet::test::metric_value(*metrics,
                                    "stet_tls_handshake_failures_total{reason=\"" + std::string(reason) + "\"}");
  }
  /// `reason` reaches `count` (the server counts after the client saw the
  /// end) and every other reason stays at 0.
  void expect_only(std::string_view reason, double count = 1) const {
    EXPECT_TRUE(eventually([&] { return failures(reason) == count; }))
        << "reason=\"" << reason << "\" is " << failures(reason) << ", expected " << count << "\n"
        << metrics->text();
    for (const std::string_view other : reasons) {
      if (other != reason) EXPECT_EQ(failures(other), 0) << "reason=\"" << other << "\" moved";
    }
  }
  /// A good client is still served after the failure.
  void expect_still_serving(std::uint16_t port) const {
    tls_client good(port, verified());
    ASSERT_TRUE(good.handshake()) << good.error();
    const auto r = good.request("GET", "/hello");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 200);
  }
};

// The start of a ClientHello record: the server has begun a handshake.
const std::string record_start("\x16\x03\x01", 3);

TEST_F(TlsFailures, ClientThatLeavesMidHandshakeCountsAsClosed) {
  running_server s(routes(), options());
  {
    raw_client fin(s.get().port(1));
    ASSERT_TRUE(fin.send(record_start));
  }  // FIN
  {
    raw_client reset(s.get().port(1));
    ASSERT_TRUE(reset.send(record_start));
    const linger abort_on_close{1, 0};
    ::setsockopt(reset.fd(), SOL_SOCKET, SO_LINGER, &abort_on_close, sizeof abort_on_close);
  }  // RST
  expect_only("closed", 2);
  expect_still_serving(s.get().port(1));
}

// The connection's own timeout (here the first byte's, shorter than the
// handshake timeout) closes it: the server ended it, not the client.
TEST_F(TlsFailures, ConnectionTimeoutMidHandshakeCountsAsAborted) {
  stet::server_options o = options();
  o.first_byte_timeout = 300ms;
  running_server s(routes(), o);
  raw_client silent(s.get().port(1));
  ASSERT_TRUE(silent.send(record_start));
  EXPECT_TRUE(silent.wait_closed(4s));  // long before the 5 s handshake timeout
  expect_only("aborted");
}

TEST_F(TlsFailures, StopMidHandshakeCountsAsAborted) {
  auto s = std::make_unique<running_server>(routes(), options());
  raw_client silent(s->get().port(1));
  ASSERT_TRUE(silent.send(record_start));
  // The server has the connection (its first bytes read) before it stops.
  ASSERT_TRUE(eventually([&] { return s->get().open_connections() == 1; }));
  s.reset();
  EXPECT_TRUE(silent.wait_closed(1s));
  expect_only("aborted");
}

TEST_F(TlsFailures, Tls12ClientToATls13OnlyListenerCountsAsVersion) {
  stet::tls_options t = stet::test::tls_settings(site);
  t.min_version = stet::tls_version::tls1_3;
  running_server s(routes(), options(t));
  tls_client_options co = verified();
  co.max_version = TLS1_2_VERSION;
  tls_client c(s.get().port(1), co);
  EXPECT_FALSE(c.handshake());
  EXPECT_NE(c.error().find("protocol version"), std::string::npos) << c.error();  // the server's alert
  expect_only("version");
  expect_still_serving(s.get().port(1));
}

TEST_F(TlsFailures, NoCipherInCommonCountsAsCipher) {
  running_server s(routes(), options());
  tls_client_options co = verified();
  co.max_version = TLS1_2_VERSION;
  co.ciphers = "AES128-GCM-SHA256";  // RSA key exchange: not among the listener's ECDHE ciphers
  tls_client c(s.get().port(1), co);
  EXPECT_FALSE(c.handshake());
  EXPECT_NE(c.error().find("handshake failure"), std::string::npos) << c.error();  // the server's alert
  expect_only("cipher");
  expect_still_serving(s.get().port(1));
}

TEST_F(TlsFailures, MissingOrUnverifiableClientCertificateCountsAsClientCertificate) {
  tls_fixture strangers{"another CA"};
  const cert_files mallory = strangers.issue("mallory", stet::test::client_named("mallory"));
  stet::tls_options t = stet::test::tls_settings(site);
  t.client_certificates = stet::client_certificates::required;
  t.client_ca_file = certs.ca_file();
  running_server s(routes(), options(t));
  // TLS 1.3: the client's handshake ends before the server has read its
  // certificate; the refusal arrives in place of the first answer.
  {
    tls_client none(s.get().port(1), verified());
    if (none.handshake()) EXPECT_FALSE(none.request("GET", "/hello"));
  }
  {
    tls_client_options co = verified();
    co.certificate_file = mallory.certificate;
    co.key_file = mallory.key;
    tls_client stranger(s.get().port(1), co);
    if (stranger.handshake()) EXPECT_FALSE(stranger.request("GET", "/hello"));
  }
  expect_only("client_certificate", 2);
}

TEST_F(TlsFailures, ClientThatDoesNotTrustTheCertificateCountsAsRefused) {
  running_server s(routes(), options());
  tls_fixture strangers{"another CA"};
  tls_client_options co;
  co.ca_file = strangers.ca_file();  // the client's alert: unknown CA
  tls_client c(s.get().port(1), co);
  EXPECT_FALSE(c.handshake());
  EXPECT_NE(c.error().find("certificate verify failed"), std::string::npos) << c.error();
  expect_only("refused");
  expect_still_serving(s.get().port(1));
}

TEST_F(TlsFailures, GarbageClientHelloCountsAsProtocol) {
  running_server s(routes(), options());
  raw_client c(s.get().port(1));
  // A handshake record header announcing a ClientHello, then nonsense.
  std::string garbage("\x16\x03\x01\x00\x40\x01\x00\x00\x3c", 9);
  garbage += std::string(60, '\xee');
  ASSERT_TRUE(c.send(garbage));
  EXPECT_TRUE(c.wait_closed(3s) || c.peer_closed());
  expect_only("protocol");
  expect_still_serving(s.get().port(1));
}

}  // namespace
