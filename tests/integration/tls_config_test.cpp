// Bad TLS configuration: start() returns an error naming the file and the
// reason (never an abort), and server::reload_tls() with such files keeps the
// context it has; a good reload serves the new certificate to new
// connections while open ones keep theirs.

#include <stet/stet.hpp>

#include "support/http_client.hpp"
#include "support/tls_client.hpp"
#include "support/tls_server.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <string>
#include <thread>

namespace {

using stet::test::cert_files;
using stet::test::running_server;
using stet::test::tls_client;
using stet::test::tls_client_options;
using stet::test::tls_fixture;

stet::router routes() {
  stet::router r;
  r.get("/hello", [](stet::request&) { return stet::response::text("hello\n"); });
  return r;
}

// The message start() gives for `tls`.
std::string start_message(stet::tls_options tls) {
  stet::server s(routes(), stet::test::tls_server_options(std::move(tls)));
  const stet::config_error e = s.start();
  if (!e) {
    s.stop();
    s.wait();
    return "started";
  }
  return e.message();
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

class TlsConfig : public ::testing::Test {
 protected:
  tls_fixture certs;
  cert_files good = certs.issue("good");
  cert_files other = certs.issue("other", stet::test::for_names({"other.test"}));
};

TEST_F(TlsConfig, MissingCertificateFileIsNamed) {
  stet::tls_options t = stet::test::tls_settings(good);
  t.certificates[0].certificate_file = certs.dir() + "/absent.pem";
  const std::string m = start_message(t);
  EXPECT_TRUE(contains(m, "absent.pem")) << m;
  EXPECT_TRUE(contains(m, "No such file")) << m;
  EXPECT_TRUE(contains(m, "listen on 127.0.0.1:0")) << m;
}

TEST_F(TlsConfig, FileWithoutACertificateIsNamed) {
  stet::tls_options t = stet::test::tls_settings(good);
  t.certificates[0].certificate_file = certs.write("junk.pem", "not a certificate\n");
  const std::string m = start_message(t);
  EXPECT_TRUE(contains(m, "junk.pem: no PEM certificate in it")) << m;
}

TEST_F(TlsConfig, KeyOfAnotherCertificateIsRefused) {
  stet::tls_options t = stet::test::tls_settings(good);
  t.certificates[0].key_file = other.key;
  const std::string m = start_message(t);
  EXPECT_TRUE(contains(m, "other.key: does not match the certificate")) << m;
}

TEST_F(TlsConfig, ExpiredCertificateIsRefused) {
  const cert_files expired = certs.issue("expired", stet::test::valid_between(-30, -1));
  const std::string m = start_message(stet::test::tls_settings(expired));
  EXPECT_TRUE(contains(m, "expired.pem: expired on")) << m;
}

TEST_F(TlsConfig, EncryptedKeyNeedsItsPassword) {
  const cert_files locked = certs.issue("locked", stet::test::with_key_password("sesame"));
  stet::tls_options t = stet::test::tls_settings(locked);
  EXPECT_TRUE(contains(start_message(t), "locked.key: the key is encrypted and no key_password was given"));
  t.certificates[0].key_password = "wrong";
  EXPECT_TRUE(contains(start_message(t), "locked.key: the key cannot be decrypted with key_password"));
  t.certificates[0].key_password = "sesame";
  EXPECT_EQ(start_message(t), "started");
}

TEST_F(TlsConfig, NoCertificateAndBadCiphersAreErrors) {
  EXPECT_TRUE(contains(start_message({}), "no certificate given"));
  stet::tls_options t = stet::test::tls_settings(good);
  t.ciphers = "NOT-A-CIPHER";
  EXPECT_TRUE(contains(start_message(t), "tls ciphers 'NOT-A-CIPHER'")) << start_message(t);
}

TEST_F(TlsConfig, BadTicketKeyFileIsNamed) {
  stet::tls_options t = stet::test::tls_settings(good);
  t.ticket_key_file = certs.write("short.key", std::string(79, 'k'));
  EXPECT_TRUE(contains(start_message(t), "short.key: holds 79 bytes")) << start_message(t);
}

TEST_F(TlsConfig, ReloadBeforeStartIsAnError) {
  stet::server s(routes(), stet::test::tls_server_options(stet::test::tls_settings(good)));
  EXPECT_TRUE(s.reload_tls());
}

TEST_F(TlsConfig, ReloadServesTheNewCertificateToNewConnectionsOnly) {
  // The listener names fixed files; the test rewrites them in place.
  const std::string cert = certs.dir() + "/live.pem";
  const std::string key = certs.dir() + "/live.key";
  std::filesystem::copy_file(good.certificate, cert);
  std::filesystem::copy_file(good.key, key);
  running_server s(routes(), stet::test::tls_server_options(stet::test::tls_settings({cert, key})));
  tls_client_options o;
  o.server_name.clear();
  tls_client before(s.get().port(1), o);
  ASSERT_TRUE(before.handshake()) << before.error();
  EXPECT_EQ(before.peer_common_name(), "localhost");

  std::filesystem::copy_file(other.certificate, cert, std::filesystem::copy_options::overwrite_existing);
  std::filesystem::copy_file(other.key, key, std::filesystem::copy_options::overwrite_existing);
  const stet::config_error e = s.get().reload_tls();
  ASSERT_FALSE(e) << e.message();

  tls_client after(s.get().port(1), o);
  ASSERT_TRUE(after.handshake()) << after.error();
  EXPECT_EQ(after.peer_common_name(), "other.test");
  // The connection opened before the reload goes on with its session.
  EXPECT_TRUE(before.request("GET", "/hello"));
  EXPECT_TRUE(after.request("GET", "/hello"));
}

TEST_F(TlsConfig, FailedReloadKeepsTheOldContext) {
  const std::string cert = certs.dir() + "/live.pem";
  const std::string key = certs.dir() + "/live.key";
  std::filesystem::copy_file(good.certificate, cert);
  std::filesystem::copy_file(good.key, key);
  running_server s(routes(), stet::test::tls_server_options(stet::test::tls_settings({cert, key})));

  // A certificate whose key is not the one on disk.
  std::filesystem::copy_file(other.certificate, cert, std::filesystem::copy_options::overwrite_existing);
  stet::config_error e = s.get().reload_tls();
  ASSERT_TRUE(e);
  EXPECT_TRUE(contains(e.message(), "live.key: does not match the certificate")) << e.message();
  // A missing key file.
  std::filesystem::remove(key);
  e = s.get().reload_tls();
  ASSERT_TRUE(e);
  EXPECT_TRUE(contains(e.message(), "live.key: No such file")) << e.message();

  tls_client c(s.get().port(1));
  ASSERT_TRUE(c.handshake()) << c.error();
  EXPECT_EQ(c.peer_common_name(), "localhost");
  EXPECT_TRUE(c.request("GET", "/hello"));
}

TEST_F(TlsConfig, ReloadUnderLoadFailsNoRequest) {
  const std::string cert = certs.dir() + "/live.pem";
  const std::string key = certs.dir() + "/live.key";
  std::filesystem::copy_file(good.certificate, cert);
  std::filesystem::copy_file(good.key, key);
  running_server s(routes(), stet::test::tls_server_options(stet::test::tls_settings({cert, key})));
  std::atomic<bool> done{false};
  std::atomic<int> failed{0};
  std::atomic<int> served{0};
  std::vector<std::thread> clients;
  for (int t = 0; t < 2; ++t) {
    clients.emplace_back([&] {
      while (!done.load()) {
        tls_client c(s.get().port(1));
        if (!c.handshake()) {
          ++failed;
          continue;
        }
        for (int i = 0; i < 3; ++i) {
          const auto r = c.request("GET", "/hello");
          (r && r->status == 200 ? served : failed)++;
        }
      }
    });
  }
  for (int i = 0; i < 10; ++i) {
    const cert_files& next = i % 2 == 0 ? other : good;
    std::filesystem::copy_file(next.certificate, cert, std::filesystem::copy_options::overwrite_existing);
    std::filesystem::copy_file(next.key, key, std::filesystem::copy_options::overwrite_existing);
    EXPECT_FALSE(s.get().reload_tls());
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  done = true;
  for (std::thread& c : clients) c.join();
  EXPECT_EQ(failed.load(), 0);
  EXPECT_GT(served.load(), 0);
}

}  // namespace
