// request::client_address(), scheme() and host(): the peer's unless the peer is
// a trusted proxy; resolved once per request, forgotten with the request's
// memos; router::url_for(request, ...) builds on them.

#include <stet/request.hpp>
#include <stet/router.hpp>
#include <stet/test_request.hpp>

#include "support/alloc_counter.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace {

using stet::endpoint;
using stet::method;
using stet::test_request;

const endpoint proxy = endpoint::parse("10.0.0.1", 40000);
const std::vector<std::string> trust_proxy = {"10.0.0.0/8"};

TEST(ClientAddress, WithoutTrustItIsThePeerWhateverTheHeadersSay) {
  test_request t(method::get, "/");
  t.header("Host", "app.example").header("X-Forwarded-For", "203.0.113.9").header("X-Forwarded-Proto", "https");
  t.peer(proxy);
  const stet::request& r = t;
  EXPECT_EQ(r.client_address(), proxy);
  EXPECT_EQ(r.client_address_text(), "10.0.0.1");
  EXPECT_EQ(r.scheme(), "http");
  EXPECT_EQ(r.host(), "app.example");
}

TEST(ClientAddress, ATrustedProxyNamesTheClientSchemeAndHost) {
  test_request t(method::get, "/");
  t.header("Host", "internal:8080")
      .header("X-Forwarded-For", "203.0.113.9")
      .header("X-Forwarded-Proto", "https")
      .header("X-Forwarded-Host", "app.example");
  t.peer(proxy).trusted_proxies(trust_proxy);
  const stet::request& r = t;
  EXPECT_EQ(r.client_address_text(), "203.0.113.9");
  EXPECT_EQ(r.client_address(), endpoint::parse("203.0.113.9"));
  EXPECT_EQ(r.remote_endpoint(), proxy);
  EXPECT_EQ(r.scheme(), "https");
  EXPECT_EQ(r.host(), "app.example");
}

TEST(ClientAddress, ForwardedWinsAndAHiddenClientHasNoAddress) {
  test_request t(method::get, "/");
  t.header("Host", "h").header("Forwarded", "for=_hidden;proto=https").header("X-Forwarded-For", "203.0.113.9");
  t.peer(proxy).trusted_proxies(trust_proxy);
  const stet::request& r = t;
  EXPECT_EQ(r.client_address_text(), "_hidden");
  EXPECT_EQ(r.client_address().kind(), endpoint::family::none);
  EXPECT_EQ(r.scheme(), "https");
}

TEST(ClientAddress, AUnixPeerIsTrustedOnlyWhenTheListNamesUnix) {
  test_request t(method::get, "/");
  t.header("Host", "h").header("X-Forwarded-For", "198.51.100.4");
  t.peer(endpoint::unix_socket()).trusted_proxies(trust_proxy);
  EXPECT_EQ(t.get().client_address_text(), "unix");
  t.trusted_proxies({"unix"});
  EXPECT_EQ(t.get().client_address_text(), "198.51.100.4");
}

TEST(ClientAddress, TheConnectionsSchemeIsTheDefault) {
  test_request t(method::get, "/");
  t.header("Host", "h").scheme("https").peer(proxy).trusted_proxies(trust_proxy);
  EXPECT_EQ(t.get().scheme(), "https");  // trusted, but it forwarded no scheme
}

TEST(ClientAddress, ABadTrustEntryIsRefusedNamingIt) {
  test_request t(method::get, "/");
  try {
    t.trusted_proxies({"10.0.0.0/8", "10.1.0.0/8"});
    FAIL() << "accepted a network with host bits";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("trusted_proxies[1] \"10.1.0.0/8\""), std::string::npos) << e.what();
  }
}

// The memo is per request: a new field (as a new request on the connection)
// is read again, and a second read costs no allocation.
TEST(ClientAddress, ResolvedOnceAndForgottenWithTheRequest) {
  test_request t(method::get, "/");
  t.header("Host", "h").header("X-Forwarded-For", "203.0.113.9").peer(proxy).trusted_proxies(trust_proxy);
  const stet::request& r = t;
  const stet::test::allocation_scope counter;
  EXPECT_EQ(r.client_address_text(), "203.0.113.9");
  EXPECT_EQ(r.client_address_text(), "203.0.113.9");
  EXPECT_EQ(counter.count(), 0u);
  t.header("X-Forwarded-For", "198.51.100.4");  // appended: now the right-most entry
  EXPECT_EQ(r.client_address_text(), "198.51.100.4");
}

TEST(ClientAddress, UrlForBuildsAnAbsoluteUrlForTheClientsOrigin) {
  stet::router routes;
  routes.get("/users/{id:int}", {.name = "user"}, [](stet::request&, std::int64_t) { return stet::response(); });
  test_request t(method::get, "/");
  t.header("Host", "internal:8080").header("X-Forwarded-Proto", "https").header("X-Forwarded-Host", "app.example");
  t.peer(proxy);
  EXPECT_EQ(routes.url_for(t, "user", {{"id", 7}}).url, "http://internal:8080/users/7");
  t.trusted_proxies(trust_proxy);
  EXPECT_EQ(routes.url_for(t, "user", {{"id", 7}}).url, "https://app.example/users/7");
  EXPECT_FALSE(routes.url_for(t, "nobody"));
  test_request hostless(method::get, "/");
  EXPECT_FALSE(routes.url_for(hostless, "user", {{"id", 7}}));
}

}  // namespace
