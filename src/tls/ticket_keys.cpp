#include "tls/ticket_keys.hpp"

#include "tls/tls_files.hpp"

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/rand.h>
#include <pthread.h>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>

namespace stet::detail {
namespace {

ticket_key random_key() {
  ticket_key k;
  if (RAND_bytes(k.name.data(), static_cast<int>(k.name.size())) != 1 ||
      RAND_bytes(k.hmac.data(), static_cast<int>(k.hmac.size())) != 1 ||
      RAND_bytes(k.aes.data(), static_cast<int>(k.aes.size())) != 1) {
    // No randomness: a key nobody can guess cannot be made, so none is made;
    // an all-zero name matches no ticket and seal_or_open() refuses to seal.
    OPENSSL_cleanse(&k, sizeof k);
  }
  return k;
}

// Ticket IVs are drawn from OpenSSL's generator in bulk: one RAND_bytes (a
// DRBG call and the getpid() system call of its fork check) per 32 tickets
// rather than per ticket. A fork makes every process refill before its next
// IV, so parent and child never seal with the same one.
std::atomic<unsigned> fork_generation{0};

void after_fork_in_child() { fork_generation.fetch_add(1, std::memory_order_relaxed); }

struct iv_pool {
  static constexpr std::size_t iv_bytes = 16;
  std::array<unsigned char, 32 * iv_bytes> bytes{};
  std::size_t used = bytes.size();
  unsigned generation = 0;
};

bool usable(const ticket_key& k) {
  return std::any_of(k.aes.begin(), k.aes.end(), [](unsigned char c) { return c != 0; });
}

}  // namespace

ticket_keys::ticket_keys(std::vector<ticket_key> keys, std::chrono::seconds rotation)
    : keys_(std::move(keys)),
      rotation_(rotation),
      next_rotation_(std::chrono::steady_clock::now() + rotation),
      aes_(EVP_CIPHER_fetch(nullptr, "AES-256-CBC", nullptr)) {}

ticket_keys::~ticket_keys() {
  OPENSSL_cleanse(keys_.data(), keys_.size() * sizeof(ticket_key));
  EVP_CIPHER_free(aes_);
}

std::shared_ptr<ticket_keys> ticket_keys::generated(std::chrono::seconds rotation) {
  return std::shared_ptr<ticket_keys>(new ticket_keys({random_key()}, std::max(rotation, std::chrono::seconds(1))));
}

std::shared_ptr<ticket_keys> ticket_keys::from_file(const std::string& path, config_error& error) {
  std::optional<std::string> bytes = read_small_file(path, "ticket key file", error);
  if (!bytes) return nullptr;
  if (bytes->empty() || bytes->size() % ticket_key::file_bytes != 0) {
    error = {std::make_error_code(std::errc::invalid_argument),
             fmt::format("tls ticket key file {}: holds {} bytes; it must hold one or more 80-byte keys "
                         "(make one with: openssl rand 80 > FILE)",
                         path, bytes->size())};
    OPENSSL_cleanse(bytes->data(), bytes->size());
    return nullptr;
  }
  std::vector<ticket_key> keys(bytes->size() / ticket_key::file_bytes);
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const char* at = bytes->data() + i * ticket_key::file_bytes;
    std::memcpy(keys[i].name.data(), at, 16);
    std::memcpy(keys[i].hmac.data(), at + 16, 32);
    std::memcpy(keys[i].aes.data(), at + 48, 32);
  }
  OPENSSL_cleanse(bytes->data(), bytes->size());
  return std::shared_ptr<ticket_keys>(new ticket_keys(std::move(keys), std::chrono::seconds(0)));
}

bool ticket_keys::next_iv(unsigned char* iv) noexcept {
  static const bool watching_forks = pthread_atfork(nullptr, nullptr, &after_fork_in_child) == 0;
  thread_local iv_pool pool;
  const unsigned generation = fork_generation.load(std::memory_order_relaxed);
  if (!watching_forks) return RAND_bytes(iv, iv_pool::iv_bytes) == 1;
  if (pool.used == pool.bytes.size() || pool.generation != generation) {
    if (RAND_bytes(pool.bytes.data(), static_cast<int>(pool.bytes.size())) != 1) return false;
    pool.used = 0;
    pool.generation = generation;
  }
  std::memcpy(iv, pool.bytes.data() + pool.used, iv_pool::iv_bytes);
  pool.used += iv_pool::iv_bytes;
  return true;
}

std::size_t ticket_keys::size() {
  std::lock_guard lock(mutex_);
  return keys_.size();
}

// The new key seals from now on; the one it replaces still opens the
// tickets it sealed (for one more period); the one before that is dropped.
void ticket_keys::rotate_if_due() {
  if (rotation_.count() == 0) return;
  const auto now = std::chrono::steady_clock::now();
  if (now < next_rotation_) return;
  keys_.insert(keys_.begin(), random_key());
  if (keys_.size() > 2) {
    OPENSSL_cleanse(&keys_.back(), sizeof(ticket_key));
    keys_.pop_back();
  }
  next_rotation_ = now + rotation_;
}

int ticket_keys::seal_or_open(unsigned char* name, unsigned char* iv, EVP_CIPHER_CTX* cipher, EVP_MAC_CTX* mac,
                              bool seal, tls_stats& stats) {
  ticket_key key;
  std::size_t index = 0;
  {
    std::lock_guard lock(mutex_);
    rotate_if_due();
    if (seal) {
      key = keys_.front();
    } else {
      const auto it = std::find_if(keys_.begin(), keys_.end(),
                                   [name](const ticket_key& k) { return std::memcmp(k.name.data(), name, 16) == 0; });
      if (it == keys_.end()) {
        stats.ticket(ticket_event::unknown);
        return 0;
      }
      key = *it;
      index = static_cast<std::size_t>(it - keys_.begin());
    }
  }
  int result = -1;
  if (aes_ != nullptr && usable(key)) {
    OSSL_PARAM params[] = {
        OSSL_PARAM_construct_octet_string(OSSL_MAC_PARAM_KEY, key.hmac.data(), key.hmac.size()),
        OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, const_cast<char*>("SHA256"), 0),  // NOLINT
        OSSL_PARAM_construct_end()};
    if (seal) {
      std::memcpy(name, key.name.data(), key.name.size());
      if (next_iv(iv) && EVP_EncryptInit_ex2(cipher, aes_, key.aes.data(), iv, nullptr) == 1 &&
          EVP_MAC_CTX_set_params(mac, params) == 1) {
        result = 1;
        stats.ticket(ticket_event::issued);
      }
    } else if (EVP_DecryptInit_ex2(cipher, aes_, key.aes.data(), iv, nullptr) == 1 &&
               EVP_MAC_CTX_set_params(mac, params) == 1) {
      result = index == 0 ? 1 : 2;
      stats.ticket(index == 0 ? ticket_event::resumed : ticket_event::renewed);
    }
  }
  OPENSSL_cleanse(&key, sizeof key);
  return result;
}

}  // namespace stet::detail
