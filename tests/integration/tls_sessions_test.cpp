// What a TLS listener chooses per handshake from what it built at start: the
// certificate by server name (SNI), client certificates (mutual TLS), and
// session resumption by ticket (TLS 1.3 and 1.2), by session ID (TLS 1.2,
// the server's bounded cache) and across two servers sharing a ticket key file.

#include <stet/stet.hpp>

#include "support/http_client.hpp"
#include "support/prometheus_check.hpp"
#include "support/tls_client.hpp"
#include "support/tls_server.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>

namespace {

using stet::test::cert_files;
using stet::test::running_server;
using stet::test::tls_client;
using stet::test::tls_client_options;
using stet::test::tls_fixture;

stet::router routes(std::shared_ptr<stet::metrics> m = nullptr) {
  stet::router r;
  r.get("/hello", [](stet::request&) { return stet::response::text("hello\n"); });
  r.get("/whoami", [](stet::request& req) {
    const stet::tls_info* tls = req.tls();
    if (tls == nullptr) return stet::response::text("plain");
    return stet::response::text("subject=" + std::string(tls->client_subject) +
                                " sni=" + std::string(tls->server_name));
  });
  if (m) r.get("/-/metrics", [m](stet::request&) { return m->respond(); });
  return r;
}

tls_client_options named(const std::string& name) {
  tls_client_options o;
  o.server_name = name;
  return o;
}

class TlsSessions : public ::testing::Test {
 protected:
  tls_fixture certs;
  cert_files site = certs.issue("site", stet::test::for_names({"localhost"}));
  cert_files api = certs.issue("api", stet::test::for_names({"api.example.test"}));
  cert_files wild = certs.issue("wild", stet::test::for_names({"*.apps.example.test"}));
};

TEST_F(TlsSessions, SniPicksTheCertificateAndFallsBackToTheDefault) {
  stet::tls_options t = stet::test::tls_settings(site);
  t.certificates.push_back({api.certificate, api.key, {}, {}});
  t.certificates.push_back({wild.certificate, wild.key, {}, {}});
  running_server s(routes(), stet::test::tls_server_options(t));
  const auto common_name = [&](const std::string& sni) {
    tls_client c(s.get().port(1), named(sni));
    if (!c.handshake()) return "handshake failed: " + c.error();
    const auto r = c.request("GET", "/whoami");
    return c.peer_common_name() + (r ? " " + r->body : " no answer");
  };
  EXPECT_EQ(common_name("api.example.test"), "api.example.test subject= sni=api.example.test");
  EXPECT_EQ(common_name("API.Example.Test"), "api.example.test subject= sni=API.Example.Test");
  EXPECT_EQ(common_name("one.apps.example.test"), "*.apps.example.test subject= sni=one.apps.example.test");
  EXPECT_EQ(common_name("a.b.apps.example.test"), "localhost subject= sni=a.b.apps.example.test");
  EXPECT_EQ(common_name("unknown.test"), "localhost subject= sni=unknown.test");
  EXPECT_EQ(common_name(""), "localhost subject= sni=");
}

TEST_F(TlsSessions, ExplicitServerNamesOverrideTheCertificates) {
  stet::tls_options t = stet::test::tls_settings(site);
  t.certificates.push_back({api.certificate, api.key, {}, {"alias.test"}});
  running_server s(routes(), stet::test::tls_server_options(t));
  tls_client alias(s.get().port(1), named("alias.test"));
  ASSERT_TRUE(alias.handshake()) << alias.error();
  EXPECT_EQ(alias.peer_common_name(), "api.example.test");
  tls_client own(s.get().port(1), named("api.example.test"));
  ASSERT_TRUE(own.handshake()) << own.error();
  EXPECT_EQ(own.peer_common_name(), "localhost");
}

class TlsMutual : public TlsSessions {
 protected:
  cert_files alice = certs.issue("alice", stet::test::client_named("alice"));
  tls_fixture strangers{"another CA"};
  cert_files mallory = strangers.issue("mallory", stet::test::client_named("mallory"));

  stet::server_options options(stet::client_certificates mode) {
    stet::tls_options t = stet::test::tls_settings(site);
    t.client_certificates = mode;
    t.client_ca_file = certs.ca_file();
    return stet::test::tls_server_options(t);
  }
  // The answer to /whoami with `who`'s certificate (none when null).
  std::string whoami(std::uint16_t port, const cert_files* who) {
    tls_client_options o;
    if (who != nullptr) {
      o.certificate_file = who->certificate;
      o.key_file = who->key;
    }
    tls_client c(port, o);
    if (!c.handshake()) return "refused";
    // TLS 1.3 reports a refused client certificate after the client's handshake ended.
    const auto r = c.request("GET", "/whoami");
    return r ? r->body : "refused";
  }
};

TEST_F(TlsMutual, RequiredCertificateIsVerifiedAndItsSubjectIsOnTheRequest) {
  running_server s(routes(), options(stet::client_certificates::required));
  EXPECT_EQ(whoami(s.get().port(1), &alice), "subject=CN=alice,O=stet tests sni=localhost");
  EXPECT_EQ(whoami(s.get().port(1), nullptr), "refused");
  EXPECT_EQ(whoami(s.get().port(1), &mallory), "refused");
}

TEST_F(TlsMutual, OptionalCertificateMayBeLeftOut) {
  running_server s(routes(), options(stet::client_certificates::optional));
  EXPECT_EQ(whoami(s.get().port(1), &alice), "subject=CN=alice,O=stet tests sni=localhost");
  EXPECT_EQ(whoami(s.get().port(1), nullptr), "subject= sni=localhost");
  EXPECT_EQ(whoami(s.get().port(1), &mallory), "refused");
}

TEST_F(TlsMutual, MissingCaFileIsAStartError) {
  stet::tls_options t = stet::test::tls_settings(site);
  t.client_certificates = stet::client_certificates::required;
  stet::server s(routes(), stet::test::tls_server_options(t));
  const stet::config_error e = s.start();
  ASSERT_TRUE(e);
  EXPECT_NE(e.message().find("tls client CA file: no file given"), std::string::npos) << e.message();
}

// A first connection with a request (so TLS 1.3 tickets have arrived), then
// a second one offering its session: whether the second resumed.
bool resumes(std::uint16_t first_port, std::uint16_t second_port, tls_client_options o) {
  stet::test::tls_session session;
  {
    tls_client first(first_port, o);
    if (!first.handshake() || !first.request("GET", "/hello") || first.resumed()) return false;
    session = first.session();
  }
  o.resume = session.get();
  tls_client second(second_port, o);
  return second.handshake() && second.request("GET", "/hello") && second.resumed();
}

TEST_F(TlsSessions, Tls13TicketResumes) {
  auto m = std::make_shared<stet::metrics>();
  stet::server_options o = stet::test::tls_server_options(stet::test::tls_settings(site));
  o.metrics = m;
  running_server s(routes(m), o);
  EXPECT_TRUE(resumes(s.get().port(1), s.get().port(1), {}));
  const stet::test::prometheus_parse p =
      stet::test::check_prometheus_text(stet::test::plain_get(s.get().port(0), "/-/metrics"));
  EXPECT_EQ(p.value(R"(stet_tls_handshakes_total{kind="resumed"})"), 1);
  EXPECT_GE(p.value(R"(stet_tls_tickets_total{event="resumed"})"), 1);
}

TEST_F(TlsSessions, Tls12TicketResumes) {
  running_server s(routes(), stet::test::tls_server_options(stet::test::tls_settings(site)));
  tls_client_options o;
  o.max_version = TLS1_2_VERSION;
  EXPECT_TRUE(resumes(s.get().port(1), s.get().port(1), o));
}

// In TLS 1.2 the server name belongs to the session: a resumed connection
// reports the name its session was made with, one certificate or several.
TEST_F(TlsSessions, Tls12ResumptionKeepsTheServerName) {
  running_server s(routes(), stet::test::tls_server_options(stet::test::tls_settings(site)));
  tls_client_options o;
  o.max_version = TLS1_2_VERSION;
  stet::test::tls_session session;
  {
    tls_client first(s.get().port(1), o);
    ASSERT_TRUE(first.handshake()) << first.error();
    const auto r = first.request("GET", "/whoami");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->body, "subject= sni=localhost");
    session = first.session();
  }
  o.resume = session.get();
  tls_client second(s.get().port(1), o);
  ASSERT_TRUE(second.handshake()) << second.error();
  ASSERT_TRUE(second.resumed());
  const auto r = second.request("GET", "/whoami");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->body, "subject= sni=localhost");
}

TEST_F(TlsSessions, Tls12SessionIdResumesFromTheCacheAndIsCounted) {
  auto m = std::make_shared<stet::metrics>();
  stet::server_options so = stet::test::tls_server_options(stet::test::tls_settings(site));
  so.metrics = m;
  running_server s(routes(m), so);
  tls_client_options o;
  o.max_version = TLS1_2_VERSION;
  o.tickets = false;
  EXPECT_TRUE(resumes(s.get().port(1), s.get().port(1), o));
  const stet::test::prometheus_parse p =
      stet::test::check_prometheus_text(stet::test::plain_get(s.get().port(0), "/-/metrics"));
  EXPECT_EQ(p.value(R"(stet_cache_hits_total{cache="tls_sessions"})"), 1);
  EXPECT_EQ(p.value(R"(stet_cache_entries{cache="tls_sessions"})"), 1);
}

TEST_F(TlsSessions, SessionCacheOffMeansNoSessionIdResumption) {
  stet::tls_options t = stet::test::tls_settings(site);
  t.session_cache_size = 0;
  running_server s(routes(), stet::test::tls_server_options(t));
  tls_client_options o;
  o.max_version = TLS1_2_VERSION;
  o.tickets = false;
  EXPECT_FALSE(resumes(s.get().port(1), s.get().port(1), o));
}

TEST_F(TlsSessions, SharedTicketKeyFileResumesAcrossServers) {
  stet::tls_options t = stet::test::tls_settings(site);
  t.ticket_key_file = certs.ticket_keys("ticket.key", 7);
  running_server one(routes(), stet::test::tls_server_options(t));
  running_server two(routes(), stet::test::tls_server_options(t));
  EXPECT_TRUE(resumes(one.get().port(1), two.get().port(1), {}));
  tls_client_options o;
  o.max_version = TLS1_2_VERSION;
  EXPECT_TRUE(resumes(one.get().port(1), two.get().port(1), o));
}

TEST_F(TlsSessions, GeneratedKeysDoNotResumeOnAnotherServer) {
  running_server one(routes(), stet::test::tls_server_options(stet::test::tls_settings(site)));
  running_server two(routes(), stet::test::tls_server_options(stet::test::tls_settings(site)));
  EXPECT_FALSE(resumes(one.get().port(1), two.get().port(1), {}));
}

TEST_F(TlsSessions, TicketsSurviveAReloadWithGeneratedKeys) {
  running_server s(routes(), stet::test::tls_server_options(stet::test::tls_settings(site)));
  stet::test::tls_session session;
  {
    tls_client first(s.get().port(1));
    ASSERT_TRUE(first.handshake()) << first.error();
    ASSERT_TRUE(first.request("GET", "/hello"));
    session = first.session();
  }
  ASSERT_FALSE(s.get().reload_tls());
  tls_client_options o;
  o.resume = session.get();
  tls_client second(s.get().port(1), o);
  ASSERT_TRUE(second.handshake()) << second.error();
  ASSERT_TRUE(second.request("GET", "/hello"));
  EXPECT_TRUE(second.resumed());
}

TEST_F(TlsSessions, OlderTicketKeyInTheFileStillResumes) {
  stet::tls_options t = stet::test::tls_settings(site);
  t.ticket_key_file = certs.ticket_keys("old.key", 1);
  running_server old_keys(routes(), stet::test::tls_server_options(t));
  // The new file seals with key 9 and still opens tickets of key 1.
  const std::string both = certs.dir() + "/both.key";
  {
    std::string bytes(80, static_cast<char>(9));
    bytes += std::string(80, static_cast<char>(1));
    certs.write("both.key", bytes);
  }
  t.ticket_key_file = both;
  running_server new_keys(routes(), stet::test::tls_server_options(t));
  EXPECT_TRUE(resumes(old_keys.get().port(1), new_keys.get().port(1), {}));
}

double metric(running_server& s, const std::string& name) {
  return stet::test::check_prometheus_text(stet::test::plain_get(s.get().port(0), "/-/metrics")).value(name);
}

// One TLS 1.3 ticket per handshake (OpenSSL would send two), and each resumed
// connection gets a fresh one: a client that uses every ticket once keeps resuming.
TEST_F(TlsSessions, Tls13HandshakeIssuesOneTicketAndResumptionRenewsIt) {
  auto m = std::make_shared<stet::metrics>();
  stet::server_options o = stet::test::tls_server_options(stet::test::tls_settings(site));
  o.metrics = m;
  running_server s(routes(m), o);
  stet::test::tls_session session;
  {
    tls_client first(s.get().port(1));
    ASSERT_TRUE(first.handshake() && first.request("GET", "/hello"));
    session = first.session();
  }
  EXPECT_EQ(metric(s, R"(stet_tls_tickets_total{event="issued"})"), 1);
  for (int round = 0; round < 2; ++round) {
    tls_client_options c;
    c.resume = session.get();
    tls_client next(s.get().port(1), c);
    ASSERT_TRUE(next.handshake() && next.request("GET", "/hello"));
    EXPECT_TRUE(next.resumed()) << "round " << round;
    session = next.session();
  }
  EXPECT_EQ(metric(s, R"(stet_tls_tickets_total{event="issued"})"), 3);
  EXPECT_EQ(metric(s, R"(stet_tls_handshakes_total{kind="resumed"})"), 2);
}

// OpenSSL's own sweep (every 255th handshake) is off; stet sweeps expired
// sessions once per lifetime (at most a minute), when a new one is cached.
TEST_F(TlsSessions, ExpiredSessionsAreSweptFromTheCache) {
  auto m = std::make_shared<stet::metrics>();
  stet::tls_options t = stet::test::tls_settings(site);
  t.session_lifetime = std::chrono::seconds(1);
  stet::server_options o = stet::test::tls_server_options(t);
  o.metrics = m;
  running_server s(routes(m), o);
  tls_client_options c;
  c.max_version = TLS1_2_VERSION;
  c.tickets = false;
  const auto full_handshake = [&] {
    tls_client client(s.get().port(1), c);
    return client.handshake() && client.request("GET", "/hello");
  };
  ASSERT_TRUE(full_handshake());
  ASSERT_TRUE(full_handshake());
  EXPECT_EQ(metric(s, R"(stet_cache_entries{cache="tls_sessions"})"), 2);
  // Past both sessions' lifetime (whole seconds: OpenSSL's clock) and the sweep interval.
  std::this_thread::sleep_for(std::chrono::milliseconds(2'500));
  ASSERT_TRUE(full_handshake());
  EXPECT_EQ(metric(s, R"(stet_cache_entries{cache="tls_sessions"})"), 1);
}

}  // namespace
