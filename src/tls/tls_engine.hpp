#pragma once
// One connection's TLS session, without a socket: ciphertext goes in from a
// window the caller sets, plaintext comes out into the caller's buffer, and
// whatever the session writes (handshake flights, records, tickets, alerts) is
// appended to a string the caller sets and sends. OpenSSL sees a BIO of ours
// over those two, so the transport decides when to read the socket, into
// which buffer, and how to send (one gather write for many records) — and the
// session holds no buffer of its own while the connection is idle (record
// buffers are released when empty: SSL_MODE_RELEASE_BUFFERS).

#include "tls/tls_context.hpp"

#include <stet/tls.hpp>

#include <openssl/ssl.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

namespace stet::detail {

class tls_engine {
 public:
  enum class result : std::uint8_t {
    done,        ///< the handshake finished / plaintext was read
    want_input,  ///< more ciphertext is needed (the window is used up)
    closed,      ///< the peer sent close_notify
    failed,      ///< a fatal error: see failure(); the connection must end
  };

  /// A session on `context`'s default certificate; ok() is false when OpenSSL
  /// could not create one (out of memory).
  explicit tls_engine(std::shared_ptr<const tls_context> context) noexcept;
  tls_engine(const tls_engine&) = delete;
  tls_engine& operator=(const tls_engine&) = delete;
  ~tls_engine();

  bool ok() const noexcept { return ssl_ != nullptr; }

  /// The ciphertext the next calls may consume; input_used() says how much they did.
  void set_input(const char* data, std::size_t size) noexcept;
  std::size_t input_used() const noexcept { return in_used_; }
  /// Where the session's output is appended. Must be set before any call.
  void set_output(std::string* out) noexcept { out_ = out; }

  /// Advances the handshake with the input there is.
  result handshake() noexcept;
  bool handshake_done() const noexcept { return done_; }
  /// Decrypts into `into` (after the handshake); `n` bytes on done.
  result read(std::span<char> into, std::size_t& n) noexcept;
  /// Encrypts all of `plain` into the output (records of up to 16 KiB); false on failure.
  bool write(std::span<const char> plain) noexcept;
  /// Appends close_notify to the output once (after a finished handshake, never after a failure).
  void close_notify() noexcept;

  /// Whether OpenSSL hands this session's records to the kernel (kernel TLS:
  /// BIO_get_ktls_send on its write BIO). Never over the transport's BIO as it
  /// is (OpenSSL switches kernel TLS on only through a BIO that handles
  /// BIO_CTRL_SET_KTLS, as its socket BIO does); send_file() is for one that does.
  bool kernel_sends() const noexcept;
  /// SSL_sendfile: the kernel reads up to `length` bytes of `fd` at `offset`
  /// and encrypts them itself. Only when kernel_sends(). Bytes sent; 0 with
  /// `blocked` when the socket takes nothing now; -1 on failure.
  std::ptrdiff_t send_file(int fd, std::uint64_t offset, std::size_t length, bool& blocked) noexcept;

  /// Whether decrypted bytes or unprocessed records are held inside the session.
  bool has_buffered() const noexcept { return ssl_ != nullptr && SSL_has_pending(ssl_) == 1; }
  /// Decrypted bytes ready to read.
  std::size_t buffered_plaintext() const noexcept;
  /// Why the handshake failed (after handshake() returned failed).
  handshake_failure failure() const noexcept { return failure_; }
  /// What was negotiated (after the handshake).
  const tls_info& info() const noexcept { return info_; }
  const tls_context& context() const noexcept { return *context_; }

 private:
  result failed() noexcept;
  void on_handshake_done();
  static BIO_METHOD* bio_method() noexcept;
  static int bio_write(BIO* bio, const char* data, int size) noexcept;
  static int bio_read(BIO* bio, char* data, int size) noexcept;
  static long bio_ctrl(BIO* bio, int command, long number, void* pointer) noexcept;

  std::shared_ptr<const tls_context> context_;
  SSL* ssl_ = nullptr;
  const char* in_ = nullptr;
  std::size_t in_size_ = 0;
  std::size_t in_used_ = 0;
  std::string* out_ = nullptr;
  tls_info info_;
  std::string subject_;  // the verified client subject info_ points into
  handshake_failure failure_ = handshake_failure::protocol;
  bool done_ = false;
  bool fatal_ = false;
  bool notified_ = false;
};

/// Classifies the error at the head of this thread's OpenSSL queue.
handshake_failure classify_handshake_error(unsigned long error) noexcept;

}  // namespace stet::detail
