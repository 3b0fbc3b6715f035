#pragma once
// Session-ticket keys: what seals the tickets of TLS 1.2 and TLS 1.3
// resumption. Either generated at start and rotated on a schedule (the
// previous key still opens tickets, which are then replaced), or read from a
// file that several instances share, so that a client resumes on any of them.
// One per TLS listener; it outlives reloads (generated keys survive them, so
// do the tickets they sealed). Thread-safe: every worker's handshakes use it.

#include "tls/tls_stats.hpp"

#include <stet/server.hpp>

#include <openssl/evp.h>

#include <array>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace stet::detail {

/// One key in nginx's 80-byte layout: name, HMAC-SHA256 secret, AES-256 key.
struct ticket_key {
  static constexpr std::size_t file_bytes = 80;
  std::array<unsigned char, 16> name{};
  std::array<unsigned char, 32> hmac{};
  std::array<unsigned char, 32> aes{};
};

class ticket_keys {
 public:
  /// A fresh random key, replaced every `rotation` (seconds > 0).
  static std::shared_ptr<ticket_keys> generated(std::chrono::seconds rotation);
  /// The keys of `path` (one or more 80-byte keys; the first seals); null with
  /// `error` naming the file and the reason.
  static std::shared_ptr<ticket_keys> from_file(const std::string& path, config_error& error);

  ticket_keys(const ticket_keys&) = delete;
  ticket_keys& operator=(const ticket_keys&) = delete;
  ~ticket_keys();

  /// The body of OpenSSL's ticket key callback
  /// (SSL_CTX_set_tlsext_ticket_key_evp_cb): seals with the current key, or
  /// opens with the key `name` names. Returns 1 (sealed / opened with the
  /// current key), 2 (opened with an older key: renew), 0 (unknown key: full
  /// handshake) or -1 (failure).
  int seal_or_open(unsigned char* name, unsigned char* iv, EVP_CIPHER_CTX* cipher, EVP_MAC_CTX* mac, bool seal,
                   tls_stats& stats);

  /// Keys held now (tests).
  std::size_t size();

  /// A fresh random 16-byte IV for a ticket (from OpenSSL's generator, drawn
  /// a batch at a time per thread; refilled after a fork); false when no
  /// randomness is available.
  static bool next_iv(unsigned char* iv) noexcept;

 private:
  ticket_keys(std::vector<ticket_key> keys, std::chrono::seconds rotation);
  void rotate_if_due();

  std::mutex mutex_;  // held only to copy a key out or to rotate
  std::vector<ticket_key> keys_;
  std::chrono::seconds rotation_;  // 0: fixed keys from a file
  std::chrono::steady_clock::time_point next_rotation_;
  EVP_CIPHER* aes_ = nullptr;  // fetched once
};

}  // namespace stet::detail
