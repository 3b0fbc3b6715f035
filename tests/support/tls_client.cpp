#include "support/tls_client.hpp"

#include <openssl/err.h>
#include <openssl/x509v3.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <csignal>
#include <cstring>

namespace stet::test {
namespace {

std::string last_error(const char* what) {
  const unsigned long e = ERR_get_error();
  ERR_clear_error();
  char text[256] = "no OpenSSL error";
  if (e != 0) ERR_error_string_n(e, text, sizeof text);
  return std::string(what) + ": " + text;
}

bool wait_for(int fd, short events, std::chrono::steady_clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
  if (left.count() <= 0) return false;
  pollfd p{fd, events, 0};
  return ::poll(&p, 1, static_cast<int>(left.count())) > 0;
}

}  // namespace

tls_client::tls_client(std::uint16_t port, tls_client_options options) {
  // OpenSSL writes to the socket with write(2): a server that closed first
  // must fail the write, not kill the test with SIGPIPE.
  static const bool sigpipe_ignored = std::signal(SIGPIPE, SIG_IGN) != SIG_ERR;
  (void)sigpipe_ignored;
  fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(port);
  to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd_, reinterpret_cast<sockaddr*>(&to), sizeof to) != 0) {
    ::close(fd_);
    fd_ = -1;
    error_ = "connect failed";
    return;
  }
  const int one = 1;
  ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  ctx_ = SSL_CTX_new(TLS_client_method());
  SSL_CTX_set_session_cache_mode(ctx_, SSL_SESS_CACHE_CLIENT);
  if (options.max_version != 0) SSL_CTX_set_max_proto_version(ctx_, options.max_version);
  if (options.min_version != 0) SSL_CTX_set_min_proto_version(ctx_, options.min_version);
  // The cipher list first: a "@SECLEVEL=n" in it sets the level too, and an
  // explicit security_level wins over it.
  if (!options.ciphers.empty()) SSL_CTX_set_cipher_list(ctx_, options.ciphers.c_str());
  if (!options.ciphersuites.empty()) SSL_CTX_set_ciphersuites(ctx_, options.ciphersuites.c_str());
  if (options.security_level >= 0) SSL_CTX_set_security_level(ctx_, options.security_level);
  if (!options.tickets) SSL_CTX_set_options(ctx_, SSL_OP_NO_TICKET);
  if (!options.ca_file.empty()) {
    SSL_CTX_load_verify_locations(ctx_, options.ca_file.c_str(), nullptr);
    SSL_CTX_set_verify(ctx_, SSL_VERIFY_PEER, nullptr);
  }
  if (!options.certificate_file.empty()) {
    SSL_CTX_use_certificate_chain_file(ctx_, options.certificate_file.c_str());
    SSL_CTX_use_PrivateKey_file(ctx_, options.key_file.c_str(), SSL_FILETYPE_PEM);
  }
  if (!options.alpn.empty()) {
    std::string wire;
    for (const std::string& p : options.alpn) {
      wire += static_cast<char>(p.size());
      wire += p;
    }
    SSL_CTX_set_alpn_protos(ctx_, reinterpret_cast<const unsigned char*>(wire.data()),
                            static_cast<unsigned int>(wire.size()));
  }
  ssl_ = SSL_new(ctx_);
  SSL_set_fd(ssl_, fd_);
  if (!options.server_name.empty()) {
    SSL_set_tlsext_host_name(ssl_, options.server_name.c_str());
    if (!options.ca_file.empty()) SSL_set1_host(ssl_, options.server_name.c_str());
  }
  if (options.resume != nullptr) SSL_set_session(ssl_, options.resume);
}

tls_client::~tls_client() {
  if (ssl_ != nullptr) SSL_free(ssl_);
  if (ctx_ != nullptr) SSL_CTX_free(ctx_);
  if (fd_ >= 0) ::close(fd_);
}

bool tls_client::handshake(std::chrono::milliseconds timeout) {
  if (ssl_ == nullptr) return false;
  timeval tv{static_cast<time_t>(timeout.count() / 1000), static_cast<suseconds_t>((timeout.count() % 1000) * 1000)};
  ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  ERR_clear_error();
  if (SSL_connect(ssl_) == 1) return true;
  error_ = last_error("handshake");
  return false;
}

bool tls_client::send(std::string_view bytes) {
  while (!bytes.empty()) {
    std::size_t n = 0;
    if (SSL_write_ex(ssl_, bytes.data(), bytes.size(), &n) != 1) return false;
    bytes.remove_prefix(n);
  }
  return true;
}

bool tls_client::fill(std::chrono::steady_clock::time_point deadline) {
  char buffer[16 * 1024];
  for (;;) {
    if (SSL_pending(ssl_) == 0 && !wait_for(fd_, POLLIN, deadline)) return false;
    std::size_t n = 0;
    if (SSL_read_ex(ssl_, buffer, sizeof buffer, &n) == 1) {
      pending_.append(buffer, n);
      return true;
    }
    const int e = SSL_get_error(ssl_, 0);
    if (e == SSL_ERROR_WANT_READ) continue;  // a ticket or another non-data record
    if (e == SSL_ERROR_ZERO_RETURN) notify_seen_ = true;
    return false;
  }
}

std::optional<http_response> tls_client::read_response(bool head_only, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    std::size_t consumed = 0;
    if (auto r = parse_response(pending_, &consumed, head_only)) {
      pending_.erase(0, consumed);
      return r;
    }
    if (!fill(deadline)) return std::nullopt;
  }
}

std::optional<http_response> tls_client::request(std::string_view method, std::string_view target,
                                                 std::string_view extra_headers, std::string_view body) {
  std::string text = std::string(method) + " " + std::string(target) + " HTTP/1.1\r\nHost: localhost\r\n";
  text += extra_headers;
  if (!body.empty()) text += "Content-Length: " + std::to_string(body.size()) + "\r\n";
  text += "\r\n";
  text += body;
  if (!send(text)) return std::nullopt;
  return read_response(method == "HEAD");
}

bool tls_client::read_more(std::chrono::milliseconds timeout) {
  return fill(std::chrono::steady_clock::now() + timeout);
}

bool tls_client::closed_with_notify(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (fill(deadline)) {
  }
  return notify_seen_;
}

bool tls_client::resumed() const { return SSL_session_reused(ssl_) == 1; }
std::string tls_client::protocol() const { return SSL_get_version(ssl_); }
std::string tls_client::cipher() const { return SSL_CIPHER_get_name(SSL_get_current_cipher(ssl_)); }

std::string tls_client::alpn() const {
  const unsigned char* data = nullptr;
  unsigned int length = 0;
  SSL_get0_alpn_selected(ssl_, &data, &length);
  return std::string(reinterpret_cast<const char*>(data), length);
}

std::string tls_client::peer_common_name() const {
  X509* peer = SSL_get0_peer_certificate(ssl_);
  if (peer == nullptr) return {};
  char cn[256] = {};
  X509_NAME_get_text_by_NID(X509_get_subject_name(peer), NID_commonName, cn, sizeof cn);
  return cn;
}

// A copy: OpenSSL marks a client's own session not resumable when the SSL is
// freed without a shutdown, as the tests' clients are.
tls_session tls_client::session() const {
  SSL_SESSION* own = SSL_get0_session(ssl_);
  return tls_session(own != nullptr ? SSL_SESSION_dup(own) : nullptr);
}

}  // namespace stet::test
