#pragma once
// Server options for TLS tests: a plain listener (index 0) and a TLS listener
// (index 1) on 127.0.0.1, ephemeral ports, the test timeouts.

#include "support/http_client.hpp"
#include "support/test_server.hpp"
#include "support/tls_certs.hpp"

#include <stet/tls.hpp>

#include <memory>
#include <string>
#include <string_view>
#include <utility>

namespace stet::test {

/// tls_options serving `files` (the default certificate); the handshake timeout
/// is long enough for sanitizers and valgrind (tests of the timeout shorten it).
inline tls_options tls_settings(const cert_files& files) {
  tls_options t;
  t.certificates.push_back({files.certificate, files.key, {}, {}});
  t.handshake_timeout = std::chrono::milliseconds(5000);
  return t;
}

/// test_options() with listeners "127.0.0.1:0" (plain, index 0) and
/// "127.0.0.1:0" over TLS with `tls` (index 1).
inline server_options tls_server_options(tls_options tls) {
  server_options o = test_options();  // its listener is the plain one
  listen_options secure{"127.0.0.1:0"};
  secure.tls = std::make_shared<const tls_options>(std::move(tls));
  o.listeners.push_back(std::move(secure));
  return o;
}

/// The body of GET `target` over plain HTTP on `port` (the metrics, say); empty when no answer came.
inline std::string plain_get(std::uint16_t port, std::string_view target) {
  raw_client c(port);
  const auto r = c.request("GET", target);
  return r ? r->body : std::string();
}

}  // namespace stet::test
