#pragma once
// The OpenSSL contexts of one TLS listener, built once from its tls_options
// (at start, and again by each reload) and then only read: one SSL_CTX per
// certificate, the server-name table that picks among them, the ALPN choice
// (http/1.1 only), client-certificate verification, the session cache and the
// ticket keys. Workers share it; a connection only creates its SSL from it and
// keeps the context alive (shared_ptr) for as long as it lives, so a reload
// swaps contexts under new handshakes while open connections keep theirs.

#include "tls/sni_table.hpp"
#include "tls/ticket_keys.hpp"
#include "tls/tls_files.hpp"
#include "tls/tls_stats.hpp"

#include <stet/error.hpp>
#include <stet/server_options.hpp>
#include <stet/tls.hpp>

#include <openssl/ssl.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <vector>

namespace stet::detail {

/// The server-side session cache's own counters (OpenSSL's), for the metrics.
struct session_cache_counts {
  std::uint64_t hits = 0;       ///< session-ID lookups that resumed
  std::uint64_t misses = 0;     ///< session IDs not (or no longer) in the cache
  std::uint64_t evictions = 0;  ///< sessions dropped because the cache was full
  std::uint64_t timeouts = 0;   ///< sessions found but expired
  std::uint64_t entries = 0;    ///< sessions held now
  session_cache_counts& operator+=(const session_cache_counts& o) noexcept;
};

class tls_context {
 public:
  /// The contexts for `options`; null with `error` ("tls certificate FILE:
  /// reason", ...) when a file cannot be used or a setting is refused.
  static std::shared_ptr<const tls_context> build(const tls_options& options, std::shared_ptr<ticket_keys> keys,
                                                  std::shared_ptr<tls_stats> stats, config_error& error);

  tls_context(const tls_context&) = delete;
  tls_context& operator=(const tls_context&) = delete;
  ~tls_context();

  /// A server-side session object for one connection; null when out of memory.
  SSL* new_session() const noexcept;
  tls_stats& stats() const noexcept { return *stats_; }
  std::chrono::milliseconds handshake_timeout() const noexcept { return handshake_timeout_; }
  session_cache_counts session_cache() const noexcept;
  /// Certificates held (the default first).
  std::size_t certificates() const noexcept { return contexts_.size(); }
  /// Drops expired sessions from the cache when the last sweep is more than
  /// sweep_interval() ago (any thread; one of them sweeps). OpenSSL's own sweep,
  /// every 255th handshake, is turned off (SSL_SESS_CACHE_NO_AUTO_CLEAR).
  void sweep_sessions_if_due() const noexcept;
  /// How often expired sessions are swept: the session lifetime, at most a minute.
  std::chrono::seconds sweep_interval() const noexcept { return sweep_interval_; }

 private:
  tls_context() = default;
  config_error add_certificate(const tls_options& options, const tls_certificate& entry);
  config_error configure(SSL_CTX* ctx, const tls_options& options);
  static int on_server_name(SSL* ssl, int* alert, void* arg);
  static int on_alpn(SSL* ssl, const unsigned char** out, unsigned char* out_length, const unsigned char* in,
                     unsigned int in_length, void* arg);
  static int on_new_session(SSL* ssl, SSL_SESSION* session);
  static int on_ticket(SSL* ssl, unsigned char* name, unsigned char* iv, EVP_CIPHER_CTX* cipher, EVP_MAC_CTX* mac,
                       int seal);

  std::vector<SSL_CTX*> contexts_;  // owned; [0] is the default, the others are chosen by name
  sni_table names_;
  std::shared_ptr<ticket_keys> keys_;
  std::shared_ptr<tls_stats> stats_;
  std::vector<x509_ptr> client_cas_;
  std::vector<unsigned char> session_id_context_;
  std::chrono::milliseconds handshake_timeout_{0};
  std::chrono::seconds sweep_interval_{60};
  mutable std::atomic<std::int64_t> next_sweep_{0};  // steady_clock ticks
};

}  // namespace stet::detail
