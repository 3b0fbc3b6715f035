// The parts of TLS that need no socket: the server-name table, ticket key
// files, the handshake-failure names, and the scheme helpers of <stet/https.hpp>.

#include "tls/sni_table.hpp"
#include "tls/ticket_keys.hpp"
#include "tls/tls_stats.hpp"

#include <stet/https.hpp>
#include <stet/test_request.hpp>

#include "support/tls_certs.hpp"

#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <set>
#include <string>
#include <string_view>
#include <thread>

namespace {

using stet::detail::sni_table;

TEST(TlsSni, ExactNamesAreCaseInsensitive) {
  sni_table t;
  t.add("Example.COM", 1);
  t.add("api.example.com", 2);
  t.freeze();
  EXPECT_EQ(t.find("example.com"), 1u);
  EXPECT_EQ(t.find("EXAMPLE.com."), 1u);
  EXPECT_EQ(t.find("API.example.com"), 2u);
  EXPECT_EQ(t.find("www.example.com"), std::nullopt);
  EXPECT_EQ(t.find(""), std::nullopt);
}

TEST(TlsSni, WildcardCoversOneLabelAndExactWins) {
  sni_table t;
  t.add("*.example.com", 1);
  t.add("special.example.com", 2);
  t.freeze();
  EXPECT_EQ(t.find("a.example.com"), 1u);
  EXPECT_EQ(t.find("special.example.com"), 2u);
  EXPECT_EQ(t.find("example.com"), std::nullopt);
  EXPECT_EQ(t.find("a.b.example.com"), std::nullopt);
  EXPECT_EQ(t.find(".example.com"), std::nullopt);
}

TEST(TlsSni, FirstCertificateToClaimANameKeepsIt) {
  sni_table t;
  t.add("example.com", 0);
  t.add("example.com", 3);
  t.freeze();
  EXPECT_EQ(t.find("example.com"), 0u);
}

TEST(TlsSni, OverlongNameFindsNothing) {
  sni_table t;
  t.add("example.com", 0);
  t.freeze();
  EXPECT_EQ(t.find(std::string(300, 'a')), std::nullopt);
}

TEST(TlsTicketKeys, FileOfWholeKeysIsRead) {
  stet::test::tls_fixture dir;
  stet::config_error error;
  const auto keys = stet::detail::ticket_keys::from_file(dir.ticket_keys("two.key", 3, 2), error);
  ASSERT_TRUE(keys) << error.message();
  EXPECT_EQ(keys->size(), 2u);
}

TEST(TlsTicketKeys, BadFilesAreNamedWithTheReason) {
  stet::test::tls_fixture dir;
  stet::config_error error;
  EXPECT_FALSE(stet::detail::ticket_keys::from_file(dir.write("odd.key", std::string(81, 'k')), error));
  EXPECT_NE(error.message().find("odd.key: holds 81 bytes"), std::string::npos) << error.message();
  EXPECT_FALSE(stet::detail::ticket_keys::from_file(dir.write("empty.key", ""), error));
  EXPECT_NE(error.message().find("empty.key: holds 0 bytes"), std::string::npos) << error.message();
  EXPECT_FALSE(stet::detail::ticket_keys::from_file(dir.dir() + "/absent.key", error));
  EXPECT_NE(error.message().find("absent.key: No such file"), std::string::npos) << error.message();
}

// One call of the ticket callback's body: seal (name filled in) or open `name`.
int seal_or_open(stet::detail::ticket_keys& keys, std::array<unsigned char, 16>& name, bool seal,
                 stet::detail::tls_stats& stats) {
  std::array<unsigned char, 16> iv{};
  EVP_CIPHER_CTX* cipher = EVP_CIPHER_CTX_new();
  EVP_MAC* hmac = EVP_MAC_fetch(nullptr, "HMAC", nullptr);
  EVP_MAC_CTX* mac = EVP_MAC_CTX_new(hmac);
  const int r = keys.seal_or_open(name.data(), iv.data(), cipher, mac, seal, stats);
  EVP_MAC_CTX_free(mac);
  EVP_MAC_free(hmac);
  EVP_CIPHER_CTX_free(cipher);
  return r;
}

TEST(TlsTicketKeys, RotationKeepsThePreviousKeyForOnePeriod) {
  stet::detail::tls_stats stats;
  const auto keys = stet::detail::ticket_keys::generated(std::chrono::seconds(1));
  std::array<unsigned char, 16> first{};
  ASSERT_EQ(seal_or_open(*keys, first, true, stats), 1);
  EXPECT_EQ(seal_or_open(*keys, first, false, stats), 1);  // the current key: resumed as is

  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  std::array<unsigned char, 16> second{};
  ASSERT_EQ(seal_or_open(*keys, second, true, stats), 1);
  EXPECT_NE(first, second);                                // a new key seals
  EXPECT_EQ(seal_or_open(*keys, first, false, stats), 2);  // the previous one still opens: renew
  EXPECT_EQ(keys->size(), 2u);

  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  std::array<unsigned char, 16> third{};
  ASSERT_EQ(seal_or_open(*keys, third, true, stats), 1);
  EXPECT_EQ(seal_or_open(*keys, first, false, stats), 0);  // two periods old: a full handshake
  EXPECT_EQ(seal_or_open(*keys, second, false, stats), 2);
  EXPECT_EQ(stats.tickets(stet::detail::ticket_event::unknown), 1u);
  EXPECT_EQ(stats.tickets(stet::detail::ticket_event::renewed), 2u);
}

TEST(TlsTicketKeys, KeysFromAFileAreNeverRotated) {
  stet::test::tls_fixture dir;
  stet::config_error error;
  const auto keys = stet::detail::ticket_keys::from_file(dir.ticket_keys("two.key", 3, 2), error);
  ASSERT_TRUE(keys) << error.message();
  stet::detail::tls_stats stats;
  std::array<unsigned char, 16> name{};
  ASSERT_EQ(seal_or_open(*keys, name, true, stats), 1);
  std::array<unsigned char, 16> expected{};
  expected.fill(3);  // the first key of the file seals
  EXPECT_EQ(name, expected);
  expected.fill(4);
  EXPECT_EQ(seal_or_open(*keys, expected, false, stats), 2);  // the second opens, and asks for renewal
}

using iv = std::array<unsigned char, 16>;

iv next_iv() {
  iv bytes{};
  EXPECT_TRUE(stet::detail::ticket_keys::next_iv(bytes.data()));
  return bytes;
}

// IVs come from a per-thread batch: across several batches none repeats.
TEST(TlsTicketKeys, TicketIvsDoNotRepeat) {
  std::set<iv> seen;
  for (int i = 0; i < 200; ++i) EXPECT_TRUE(seen.insert(next_iv()).second) << "IV " << i << " repeated";
}

// A forked child must not seal with the IVs its parent has still to use.
TEST(TlsTicketKeys, ForkedChildDrawsOtherIvs) {
  next_iv();  // the batch is filled and partly used
  std::array<int, 2> pipe_fds{};
  ASSERT_EQ(::pipe(pipe_fds.data()), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    const iv mine = next_iv();
    const bool written = ::write(pipe_fds[1], mine.data(), mine.size()) == static_cast<ssize_t>(mine.size());
    ::_exit(written ? 0 : 1);
  }
  ::close(pipe_fds[1]);
  iv childs{};
  const ssize_t n = ::read(pipe_fds[0], childs.data(), childs.size());
  ::close(pipe_fds[0]);
  int status = 0;
  ::waitpid(child, &status, 0);
  ASSERT_EQ(n, static_cast<ssize_t>(childs.size()));
  EXPECT_NE(childs, next_iv());
}

TEST(TlsStats, MetricsTextNamesEveryFailureReason) {
  // Written out, in the enum's order: a reason added, renamed or moved there fails here.
  constexpr std::array<std::string_view, 10> names = {"timeout", "closed",  "aborted", "plain_http",
                                                      "version", "cipher",  "alpn",    "client_certificate",
                                                      "refused", "protocol"};
  static_assert(names.size() == stet::detail::handshake_failure_count);
  stet::detail::tls_stats stats;
  // Reason i failed i + 1 times: each line carries its own count, no other's.
  for (std::size_t i = 0; i < names.size(); ++i) {
    for (std::size_t n = 0; n <= i; ++n) stats.handshake_failed(static_cast<stet::detail::handshake_failure>(i));
  }
  stats.handshake_done(false, "TLSv1.3", "TLS_AES_128_GCM_SHA256", std::chrono::microseconds(300));
  std::string text;
  stats.append_text(text);
  for (std::size_t i = 0; i < names.size(); ++i) {
    EXPECT_EQ(stet::detail::to_string(static_cast<stet::detail::handshake_failure>(i)), names[i]);
    const std::string line =
        "\nstet_tls_handshake_failures_total{reason=\"" + std::string(names[i]) + "\"} " + std::to_string(i + 1) + "\n";
    EXPECT_NE(text.find(line), std::string::npos) << "no line " << line << text;
  }
  EXPECT_NE(text.find("stet_tls_connections_total{protocol=\"TLSv1.3\",cipher=\"TLS_AES_128_GCM_SHA256\"} 1"),
            std::string::npos);
  EXPECT_NE(text.find("stet_tls_handshake_seconds_count 1"), std::string::npos);
}

stet::tls_info tls13() {
  stet::tls_info info;
  info.protocol = "TLSv1.3";
  info.cipher = "TLS_AES_128_GCM_SHA256";
  return info;
}

TEST(Https, HstsOnlyOverTls) {
  const stet::hsts h({.max_age = std::chrono::seconds(600), .include_subdomains = true, .preload = false});
  EXPECT_EQ(h.value(), "max-age=600; includeSubDomains");
  stet::test_request plain(stet::method::get, "/");
  stet::response a = stet::response::text("x");
  h.after(plain, a);
  EXPECT_FALSE(a.header("strict-transport-security"));
  stet::test_request secure(stet::method::get, "/");
  secure.tls(tls13());
  stet::response b = stet::response::text("x");
  h.after(secure, b);
  EXPECT_EQ(b.header("strict-transport-security"), "max-age=600; includeSubDomains");
}

TEST(Https, RedirectToHttpsKeepsHostPathAndQuery) {
  const stet::redirect_to_https to8443(8443);
  stet::test_request get(stet::method::get, "/a/b?x=1");
  get.header("Host", "example.com:8080");
  const auto r = to8443.before(get);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status(), stet::status::moved_permanently);
  EXPECT_EQ(r->header("location"), "https://example.com:8443/a/b?x=1");

  stet::test_request post(stet::method::post, "/form");
  post.header("Host", "[::1]:8080");
  const auto p = stet::redirect_to_https().before(post);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->status(), stet::status::permanent_redirect);
  EXPECT_EQ(p->header("location"), "https://[::1]/form");

  stet::test_request no_host(stet::method::get, "/");
  const auto bad = to8443.before(no_host);
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->status(), stet::status::bad_request);

  stet::test_request secure(stet::method::get, "/");
  secure.header("Host", "example.com");
  secure.tls(tls13());
  EXPECT_FALSE(to8443.before(secure));
}

TEST(Https, AbsoluteUrlFollowsTheConnectionsScheme) {
  stet::test_request plain(stet::method::get, "/");
  plain.header("Host", "example.com");
  EXPECT_EQ(stet::absolute_url(plain, "/x?y=1"), "http://example.com/x?y=1");
  stet::test_request secure(stet::method::get, "/");
  secure.header("Host", "example.com:8443");
  secure.tls(tls13());
  EXPECT_EQ(stet::absolute_url(secure, "/x"), "https://example.com:8443/x");
  stet::test_request no_host(stet::method::get, "/");
  EXPECT_EQ(stet::absolute_url(no_host, "/x"), "/x");
}

}  // namespace
