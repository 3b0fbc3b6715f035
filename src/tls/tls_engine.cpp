#include "tls/tls_engine.hpp"

#include "tls/tls_files.hpp"

#include <openssl/err.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <new>

namespace stet::detail {
namespace {

constexpr std::size_t record_bytes = 16 * 1024;

}  // namespace

handshake_failure classify_handshake_error(unsigned long error) noexcept {
  const int reason = ERR_GET_REASON(error);
  switch (reason) {
    case SSL_R_HTTP_REQUEST:
    case SSL_R_HTTPS_PROXY_REQUEST: return handshake_failure::plain_http;
    case SSL_R_UNSUPPORTED_PROTOCOL:
    case SSL_R_VERSION_TOO_LOW:
    case SSL_R_NO_PROTOCOLS_AVAILABLE: return handshake_failure::version;
    case SSL_R_NO_SHARED_CIPHER:
    case SSL_R_NO_SHARED_GROUPS:
    case SSL_R_NO_SUITABLE_SIGNATURE_ALGORITHM:
    case SSL_R_NO_SHARED_SIGNATURE_ALGORITHMS: return handshake_failure::cipher;
    case SSL_R_NO_APPLICATION_PROTOCOL: return handshake_failure::alpn;
    case SSL_R_PEER_DID_NOT_RETURN_A_CERTIFICATE:
    case SSL_R_CERTIFICATE_VERIFY_FAILED: return handshake_failure::client_certificate;
    default: break;
  }
  // Reasons from SSL_AD_REASON_OFFSET on are alerts the peer sent.
  if (ERR_GET_LIB(error) == ERR_LIB_SSL && reason >= SSL_AD_REASON_OFFSET) return handshake_failure::refused;
  return handshake_failure::protocol;
}

tls_engine::tls_engine(std::shared_ptr<const tls_context> context) noexcept : context_(std::move(context)) {
  BIO_METHOD* method = bio_method();
  if (method == nullptr) return;
  ssl_ = context_->new_session();
  if (ssl_ == nullptr) return;
  BIO* bio = BIO_new(method);
  if (bio == nullptr) {
    SSL_free(ssl_);
    ssl_ = nullptr;
    return;
  }
  BIO_set_data(bio, this);
  BIO_set_init(bio, 1);
  SSL_set_bio(ssl_, bio, bio);  // one BIO both ways; the session owns it
}

tls_engine::~tls_engine() {
  if (ssl_ == nullptr) return;
  // OpenSSL drops a session from the cache when its SSL is freed without a
  // shutdown; a client that closed without close_notify (browsers do) after a
  // good handshake must still be able to resume it.
  if (done_ && !fatal_) SSL_set_shutdown(ssl_, SSL_SENT_SHUTDOWN | SSL_RECEIVED_SHUTDOWN);
  SSL_free(ssl_);
}

void tls_engine::set_input(const char* data, std::size_t size) noexcept {
  in_ = data;
  in_size_ = size;
  in_used_ = 0;
}

std::size_t tls_engine::buffered_plaintext() const noexcept {
  return ssl_ != nullptr ? static_cast<std::size_t>(std::max(SSL_pending(ssl_), 0)) : 0;
}

tls_engine::result tls_engine::failed() noexcept {
  fatal_ = true;
  ERR_clear_error();
  return result::failed;
}

tls_engine::result tls_engine::handshake() noexcept {
  if (done_) return result::done;
  if (fatal_ || ssl_ == nullptr) return result::failed;
  ERR_clear_error();
  const int r = SSL_do_handshake(ssl_);
  if (r == 1) {
    on_handshake_done();
    return result::done;
  }
  const int e = SSL_get_error(ssl_, r);
  if (e == SSL_ERROR_WANT_READ) return result::want_input;
  failure_ = e == SSL_ERROR_SSL ? classify_handshake_error(ERR_peek_error()) : handshake_failure::protocol;
  return failed();
}

void tls_engine::on_handshake_done() {
  done_ = true;
  info_.protocol = SSL_get_version(ssl_);
  const SSL_CIPHER* cipher = SSL_get_current_cipher(ssl_);
  info_.cipher = cipher != nullptr ? SSL_CIPHER_get_name(cipher) : "";
  const char* name = SSL_get_servername(ssl_, TLSEXT_NAMETYPE_host_name);
  info_.server_name = name != nullptr ? name : "";
  info_.resumed = SSL_session_reused(ssl_) == 1;
  X509* peer = SSL_get0_peer_certificate(ssl_);
  if (peer != nullptr && SSL_get_verify_result(ssl_) == X509_V_OK) {
    try {
      subject_ = subject_text(peer);
    } catch (const std::bad_alloc&) {
      subject_.clear();
    }
    info_.client_subject = subject_;
  }
}

tls_engine::result tls_engine::read(std::span<char> into, std::size_t& n) noexcept {
  n = 0;
  if (fatal_ || ssl_ == nullptr) return result::failed;
  ERR_clear_error();
  if (SSL_read_ex(ssl_, into.data(), into.size(), &n) == 1) return result::done;
  switch (SSL_get_error(ssl_, 0)) {
    case SSL_ERROR_WANT_READ: return result::want_input;
    case SSL_ERROR_ZERO_RETURN: return result::closed;
    default: return failed();
  }
}

bool tls_engine::write(std::span<const char> plain) noexcept {
  if (fatal_ || ssl_ == nullptr || !done_) return false;
  while (!plain.empty()) {
    const std::size_t piece = std::min(plain.size(), record_bytes);
    std::size_t written = 0;
    ERR_clear_error();
    if (SSL_write_ex(ssl_, plain.data(), piece, &written) != 1 || written != piece) {
      failed();
      return false;
    }
    plain = plain.subspan(piece);
  }
  return true;
}

void tls_engine::close_notify() noexcept {
  if (notified_ || fatal_ || !done_ || ssl_ == nullptr) return;
  notified_ = true;
  ERR_clear_error();
  SSL_shutdown(ssl_);  // 0: ours is out, the peer's not seen; nothing is waited for
  ERR_clear_error();
}

bool tls_engine::kernel_sends() const noexcept {
  return ssl_ != nullptr && done_ && !fatal_ && BIO_get_ktls_send(SSL_get_wbio(ssl_)) == 1;
}

std::ptrdiff_t tls_engine::send_file(int fd, std::uint64_t offset, std::size_t length, bool& blocked) noexcept {
  blocked = false;
  if (!kernel_sends()) return -1;
  ERR_clear_error();
  const ossl_ssize_t n = SSL_sendfile(ssl_, fd, static_cast<off_t>(offset), length, 0);
  if (n >= 0) return n;
  const int e = SSL_get_error(ssl_, static_cast<int>(n));
  if (e == SSL_ERROR_WANT_WRITE) {
    blocked = true;
    return 0;
  }
  failed();
  return -1;
}

BIO_METHOD* tls_engine::bio_method() noexcept {
  static BIO_METHOD* const method = [] {
    BIO_METHOD* m = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "stet transport");
    if (m == nullptr) return m;
    BIO_meth_set_write(m, &tls_engine::bio_write);
    BIO_meth_set_read(m, &tls_engine::bio_read);
    BIO_meth_set_ctrl(m, &tls_engine::bio_ctrl);
    return m;
  }();
  return method;
}

int tls_engine::bio_write(BIO* bio, const char* data, int size) noexcept {
  auto* self = static_cast<tls_engine*>(BIO_get_data(bio));
  BIO_clear_retry_flags(bio);
  if (self == nullptr || self->out_ == nullptr || size < 0) return -1;
  try {
    self->out_->append(data, static_cast<std::size_t>(size));
  } catch (const std::bad_alloc&) {
    return -1;
  }
  return size;
}

int tls_engine::bio_read(BIO* bio, char* data, int size) noexcept {
  auto* self = static_cast<tls_engine*>(BIO_get_data(bio));
  BIO_clear_retry_flags(bio);
  if (self == nullptr || size <= 0) return 0;
  const std::size_t left = self->in_size_ - self->in_used_;
  if (left == 0) {
    BIO_set_retry_read(bio);  // nothing more now: the transport reads the socket and comes back
    return -1;
  }
  const std::size_t n = std::min(left, static_cast<std::size_t>(size));
  std::memcpy(data, self->in_ + self->in_used_, n);
  self->in_used_ += n;
  return static_cast<int>(n);
}

long tls_engine::bio_ctrl(BIO* bio, int command, long /*number*/, void* /*pointer*/) noexcept {
  auto* self = static_cast<tls_engine*>(BIO_get_data(bio));
  switch (command) {
    case BIO_CTRL_FLUSH: return 1;
    case BIO_CTRL_PENDING:
      return self != nullptr ? static_cast<long>(std::min<std::size_t>(self->in_size_ - self->in_used_, LONG_MAX)) : 0;
    default: return 0;  // BIO_CTRL_WPENDING included: nothing waits on the write side
  }
}

}  // namespace stet::detail
