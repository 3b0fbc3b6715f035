#pragma once
/// @file
/// HTTPS listeners: certificates, versions, ciphers, client certificates,
/// session resumption (see docs/tls.md).

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace stet {

/// The lowest protocol version a TLS listener accepts (TLS 1.3 is always
/// preferred when the client offers it).
enum class tls_version : std::uint8_t {
  tls1_2,  ///< TLS 1.2 and 1.3
  tls1_3,  ///< TLS 1.3 only
};

/// Whether a TLS listener asks clients for a certificate (mutual TLS).
enum class client_certificates : std::uint8_t {
  none,      ///< never asked for
  optional,  ///< asked for; a client may send none, but one it sends must verify against the CA file
  required,  ///< a client without a certificate that verifies is refused during the handshake
};

/// One certificate chain and its private key, both PEM files, read at start()
/// and again at each server::reload_tls().
struct tls_certificate {
  /// The leaf certificate first, then the intermediates (as `fullchain.pem`).
  std::string certificate_file{};
  /// The private key of the leaf certificate (PKCS#8, traditional RSA or EC).
  std::string key_file{};
  /// The passphrase of an encrypted key file; empty for a plain one.
  std::string key_password{};
  /// The server names (SNI) this certificate answers for: exact names or
  /// `*.example.com` (one label). Empty: the DNS names of its
  /// subjectAltName (its subject's CN when it has none).
  std::vector<std::string> server_names{};
};

/// OpenSSL cipher list used for TLS 1.2 unless tls_options::ciphers says
/// otherwise: ECDHE key exchange with AES-GCM or ChaCha20-Poly1305 only
/// (forward secret, authenticated encryption; Mozilla's "intermediate").
inline constexpr std::string_view default_tls12_ciphers =
    "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:"
    "ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305";
/// TLS 1.3 cipher suites used unless tls_options::ciphersuites says otherwise.
inline constexpr std::string_view default_tls13_ciphersuites =
    "TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256";

/// The TLS settings of one listener (listen_options::tls). Everything here is
/// turned into OpenSSL contexts once, at start(): a connection only creates its
/// session object from them. A file that cannot be used makes start() (or
/// reload_tls()) return an error naming the file and the reason.
struct tls_options {
  /// The certificates served; the first is the default, used when a client
  /// sends no server name or one no certificate lists. At least one.
  std::vector<tls_certificate> certificates{};
  /// The lowest version accepted.
  tls_version min_version = tls_version::tls1_2;
  /// TLS 1.2 cipher list (OpenSSL syntax); the client's preference wins among them.
  std::string ciphers{default_tls12_ciphers};
  /// TLS 1.3 cipher suites (OpenSSL syntax).
  std::string ciphersuites{default_tls13_ciphersuites};
  /// Whether clients must present a certificate that verifies against `client_ca_file`.
  stet::client_certificates client_certificates = stet::client_certificates::none;
  /// PEM file of the CAs a client certificate must chain to (needed unless
  /// `client_certificates` is none); their names are sent to clients as hints.
  std::string client_ca_file{};
  /// Session-ticket keys shared with other instances: a file of one or more
  /// 80-byte keys (`openssl rand 80 > ticket.key`; 16 bytes name, 32 bytes
  /// HMAC secret, 32 bytes AES key, as nginx reads them). The first key
  /// encrypts new tickets; every key decrypts. Re-read by reload_tls(). Empty:
  /// keys are generated at start and rotated every `ticket_key_rotation`.
  std::string ticket_key_file{};
  /// How often generated ticket keys are replaced; a ticket sealed with the
  /// previous key still resumes (and is replaced by a new one), older ones do not.
  std::chrono::seconds ticket_key_rotation{std::chrono::hours(12)};
  /// How long a session may be resumed (tickets and the session cache).
  std::chrono::seconds session_lifetime{std::chrono::hours(1)};
  /// Sessions the server keeps for TLS 1.2 session-ID resumption (clients
  /// that do not use tickets); the oldest is evicted beyond it. 0 disables the cache.
  std::size_t session_cache_size = 20'000;
  /// A handshake not finished this long after the connection was accepted is
  /// closed (a silent or slow client costs only its own connection).
  std::chrono::milliseconds handshake_timeout{10'000};
};

/// What a TLS connection negotiated, for handlers (request::tls()). Every view
/// stays valid as long as the request does.
struct tls_info {
  std::string_view protocol;        ///< "TLSv1.3" or "TLSv1.2"
  std::string_view cipher;          ///< e.g. "TLS_AES_128_GCM_SHA256"
  std::string_view server_name;     ///< the SNI name the client sent; empty when none
  std::string_view client_subject;  ///< the verified client certificate's subject (RFC 2253); empty when none
  bool resumed = false;             ///< the session was resumed (ticket or session ID), not a full handshake
};

}  // namespace stet
