// tls_resume_client: a fixed number of TLS handshakes against HOST:PORT, one
// connection each, the way `openssl s_time` makes them (a blocking connect,
// the handshake, then close without close_notify, so the session stays
// resumable), but counted: bench/e2e/tls_instructions.sh divides a server's
// callgrind instructions by an exact number of handshakes, and s_time runs
// for a time instead.
//
//   c++ -std=c++20 -O2 -o /tmp/tls_resume_client bench/e2e/peers/tls_resume_client.cpp -lssl -lcrypto
//   tls_resume_client [--tls1_2|--tls1_3] [--new] [--session-id] [--latest] [--request PATH] HOST PORT N
//
// One full handshake first, whose session the next N connections offer
// (s_time -reuse offers its first session every time; --latest offers the
// newest one instead, as a browser does); --new makes all N full handshakes.
// The session is offered as the server gave it: with the session ticket when
// there is one; --session-id refuses tickets (SSL_OP_NO_TICKET), so the
// server resumes from its session cache. --request sends GET PATH (Connection:
// close) and reads the answer to its end, which also takes a TLS 1.3 ticket.
//
// Prints one line: "handshakes N resumed R ticket T" (T: 1 when the first
// session carried a ticket) and exits non-zero when a connection fails.

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <openssl/err.h>
#include <openssl/ssl.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

namespace {

struct settings {
  const char* host = nullptr;
  int port = 0;
  long count = 0;
  int version = TLS1_2_VERSION;
  bool fresh = false;       // --new
  bool session_id = false;  // --session-id
  bool latest = false;      // --latest
  const char* path = nullptr;
};

bool parse(int argc, char** argv, settings& s) {
  int positional = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a == "--tls1_2") {
      s.version = TLS1_2_VERSION;
    } else if (a == "--tls1_3") {
      s.version = TLS1_3_VERSION;
    } else if (a == "--new") {
      s.fresh = true;
    } else if (a == "--session-id") {
      s.session_id = true;
    } else if (a == "--latest") {
      s.latest = true;
    } else if (a == "--request" && i + 1 < argc) {
      s.path = argv[++i];
    } else if (positional == 0) {
      s.host = argv[i];
      ++positional;
    } else if (positional == 1) {
      s.port = std::atoi(argv[i]);
      ++positional;
    } else if (positional == 2) {
      s.count = std::atol(argv[i]);
      ++positional;
    } else {
      return false;
    }
  }
  return positional == 3 && s.port > 0 && s.count >= 0;
}

int connect_to(const settings& s) {
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(s.port));
  if (inet_pton(AF_INET, s.host, &address.sin_addr) != 1) return -1;
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return -1;
  if (connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
    close(fd);
    return -1;
  }
  const int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

bool request(SSL* ssl, const char* path) {
  const std::string head = std::string("GET ") + path + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n";
  if (SSL_write(ssl, head.data(), static_cast<int>(head.size())) <= 0) return false;
  char buffer[16 * 1024];
  while (SSL_read(ssl, buffer, sizeof buffer) > 0) {
  }
  return true;
}

// One connection offering `offer` (may be null); the session it ends with
// (a new reference) through `kept`, and whether it was resumed.
bool one_connection(SSL_CTX* ctx, const settings& s, SSL_SESSION* offer, SSL_SESSION** kept, bool& resumed) {
  const int fd = connect_to(s);
  if (fd < 0) return false;
  SSL* ssl = SSL_new(ctx);
  SSL_set_fd(ssl, fd);
  SSL_set_tlsext_host_name(ssl, "localhost");
  if (offer != nullptr) SSL_set_session(ssl, offer);
  bool ok = SSL_connect(ssl) == 1 && (s.path == nullptr || request(ssl, s.path));
  if (ok) {
    resumed = SSL_session_reused(ssl) == 1;
    if (kept != nullptr) *kept = SSL_get1_session(ssl);
  } else {
    ERR_print_errors_fp(stderr);
  }
  SSL_set_shutdown(ssl, SSL_SENT_SHUTDOWN | SSL_RECEIVED_SHUTDOWN);
  SSL_free(ssl);
  close(fd);
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  settings s;
  if (!parse(argc, argv, s)) {
    std::fprintf(stderr,
                 "usage: tls_resume_client [--tls1_2|--tls1_3] [--new] [--session-id] [--latest] "
                 "[--request PATH] HOST PORT N\n");
    return 2;
  }
  SSL_CTX* ctx = SSL_CTX_new(TLS_client_method());
  SSL_CTX_set_min_proto_version(ctx, s.version);
  SSL_CTX_set_max_proto_version(ctx, s.version);
  if (s.session_id) SSL_CTX_set_options(ctx, SSL_OP_NO_TICKET);
  SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_CLIENT);

  SSL_SESSION* session = nullptr;
  bool resumed = false;
  if (!one_connection(ctx, s, nullptr, &session, resumed)) return 1;
  const int ticket = SSL_SESSION_has_ticket(session);
  long reused = 0;
  for (long i = 0; i < s.count; ++i) {
    SSL_SESSION* next = nullptr;
    if (!one_connection(ctx, s, s.fresh ? nullptr : session, s.latest ? &next : nullptr, resumed)) return 1;
    reused += resumed ? 1 : 0;
    if (next != nullptr) {
      SSL_SESSION_free(session);
      session = next;
    }
  }
  std::printf("handshakes %ld resumed %ld ticket %d\n", s.count, reused, ticket);
  SSL_SESSION_free(session);
  SSL_CTX_free(ctx);
  return 0;
}
