// The client behind a trusted proxy over real sockets: client_address(),
// scheme() and host() follow X-Forwarded-* only from a trusted peer, the
// access log names that client, and a bad trust entry is a start error.

#include <stet/stet.hpp>

#include "support/http_client.hpp"
#include "support/test_server.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace {

using stet::test::raw_client;
using stet::test::running_server;

stet::router client_routes() {
  stet::router r;
  r.get("/client", [](stet::request& req) {
    return stet::response::text(std::string(req.client_address_text()) + " " + std::string(req.scheme()) + " " +
                                std::string(req.host()) + " " + req.remote_endpoint().address_string());
  });
  return r;
}

constexpr std::string_view forwarded_headers =
    "X-Forwarded-For: 203.0.113.9\r\nX-Forwarded-Proto: https\r\nX-Forwarded-Host: app.example\r\n";

std::string ask(std::uint16_t port, std::string_view headers = forwarded_headers) {
  raw_client client(port);
  const auto r = client.request("GET", "/client", headers);
  return r ? r->body : "no answer";
}

TEST(ClientAddressWire, ATrustedPeerForwardsTheClient) {
  stet::server_options o = stet::test::test_options();
  o.trusted_proxies = {"127.0.0.0/8"};
  running_server server(client_routes(), o);
  EXPECT_EQ(ask(server.port()), "203.0.113.9 https app.example 127.0.0.1");
  // A second request on the same connection is resolved afresh.
  raw_client client(server.port());
  ASSERT_TRUE(client.request("GET", "/client", forwarded_headers));
  const auto again = client.request("GET", "/client", "X-Forwarded-For: 198.51.100.1\r\n");
  ASSERT_TRUE(again);
  EXPECT_EQ(again->body, "198.51.100.1 http 127.0.0.1 127.0.0.1");
}

TEST(ClientAddressWire, AnUntrustedPeerIsTheClientWhateverItSends) {
  running_server server(client_routes());  // trusts nobody: the default
  EXPECT_EQ(ask(server.port()), "127.0.0.1 http 127.0.0.1 127.0.0.1");
  stet::server_options o = stet::test::test_options();
  o.trusted_proxies = {"10.0.0.0/8", "unix"};
  running_server elsewhere(client_routes(), o);
  EXPECT_EQ(ask(elsewhere.port()), "127.0.0.1 http 127.0.0.1 127.0.0.1");
}

TEST(ClientAddressWire, ABadTrustEntryIsAStartErrorNamingIt) {
  stet::server_options o = stet::test::test_options();
  o.trusted_proxies = {"127.0.0.1", "192.0.2.0/33"};
  stet::server server(client_routes(), o);
  const stet::config_error failed = server.start();
  ASSERT_TRUE(failed);
  EXPECT_EQ(failed.code(), std::errc::invalid_argument);
  EXPECT_EQ(failed.message(), "trusted_proxies[1] \"192.0.2.0/33\": prefix length over 32");
  EXPECT_EQ(server.port(), 0);
}

TEST(ClientAddressWire, TheAccessLogNamesTheForwardedClient) {
  const std::filesystem::path log =
      std::filesystem::temp_directory_path() / ("stet-client-" + std::to_string(::getpid()) + ".log");
  {
    stet::server_options o = stet::test::test_options();
    o.trusted_proxies = {"127.0.0.1"};
    o.threads = 1;  // each worker writes its own log lines: one worker keeps them in request order
    o.access_log.enabled = true;
    o.access_log.path = log.string();
    running_server server(client_routes(), o);
    ask(server.port());
    ask(server.port(), "");
  }
  std::ifstream in(log);
  std::string first;
  std::string second;
  std::getline(in, first);
  std::getline(in, second);
  std::filesystem::remove(log);
  EXPECT_EQ(first.rfind("203.0.113.9 - - [", 0), 0u) << first;
  EXPECT_EQ(second.rfind("127.0.0.1 - - [", 0), 0u) << second;
}

}  // namespace
