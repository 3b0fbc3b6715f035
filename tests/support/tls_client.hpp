#pragma once
// A blocking TLS client over a POSIX socket (OpenSSL's client API), for tests
// that check what a real TLS peer sees: the certificate, the protocol, ALPN,
// resumption, close_notify, and the HTTP answers inside.

#include "support/http_client.hpp"

#include <openssl/ssl.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace stet::test {

struct session_free {
  void operator()(SSL_SESSION* s) const noexcept { SSL_SESSION_free(s); }
};
using tls_session = std::unique_ptr<SSL_SESSION, session_free>;

struct tls_client_options {
  std::string server_name = "localhost";  ///< SNI; empty sends none
  std::string ca_file;                    ///< verify the server against it; empty: no verification
  std::string certificate_file;           ///< a client certificate (mutual TLS)
  std::string key_file;
  SSL_SESSION* resume = nullptr;              ///< a session to resume (not owned)
  std::vector<std::string> alpn{"http/1.1"};  ///< offered protocols; empty offers none
  int max_version = 0;                        ///< e.g. TLS1_2_VERSION; 0: the highest
  int min_version = 0;                        ///< e.g. TLS1_VERSION; 0: OpenSSL's (and the system's) lowest
  int security_level = -1;                    ///< SSL_CTX_set_security_level; -1: OpenSSL's default
  std::string ciphers;                        ///< TLS 1.2 and older cipher list; empty: OpenSSL's default
  std::string ciphersuites;                   ///< TLS 1.3 cipher suites; empty: OpenSSL's default
  bool tickets = true;                        ///< false: no session tickets (session-ID resumption only)
};

class tls_client {
 public:
  /// Connects to 127.0.0.1:`port` (no handshake yet).
  explicit tls_client(std::uint16_t port, tls_client_options options = {});
  ~tls_client();
  tls_client(const tls_client&) = delete;
  tls_client& operator=(const tls_client&) = delete;

  /// Runs the handshake; false with error() saying why.
  bool handshake(std::chrono::milliseconds timeout = std::chrono::seconds(5));
  const std::string& error() const noexcept { return error_; }

  bool send(std::string_view bytes);
  std::optional<http_response> read_response(bool head_only = false,
                                             std::chrono::milliseconds timeout = std::chrono::seconds(5));
  /// One request with Host; returns the response.
  std::optional<http_response> request(std::string_view method, std::string_view target,
                                       std::string_view extra_headers = {}, std::string_view body = {});
  /// Reads what arrives next into received(); false on timeout or close.
  bool read_more(std::chrono::milliseconds timeout = std::chrono::seconds(5));
  /// What was read and not taken by read_response() (the caller may consume it).
  std::string& received() noexcept { return pending_; }
  /// Reads until the server closes: true when it sent close_notify first.
  bool closed_with_notify(std::chrono::milliseconds timeout = std::chrono::seconds(5));

  bool resumed() const;
  std::string protocol() const;
  std::string cipher() const;
  std::string alpn() const;
  /// The CN of the certificate the server presented.
  std::string peer_common_name() const;
  /// The session to resume with later (after a response, so TLS 1.3 tickets have arrived).
  tls_session session() const;
  int fd() const noexcept { return fd_; }
  SSL* ssl() const noexcept { return ssl_; }

 private:
  bool fill(std::chrono::steady_clock::time_point deadline);
  int fd_ = -1;
  SSL_CTX* ctx_ = nullptr;
  SSL* ssl_ = nullptr;
  std::string pending_;
  std::string error_;
  bool notify_seen_ = false;
};

}  // namespace stet::test
