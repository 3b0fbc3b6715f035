// A server tls_engine (and a tls_transport over the memory transport) against
// an OpenSSL client over memory: what a handshake leaves behind (one TLS 1.3
// ticket), how a large body is written when the kernel does not encrypt (full
// 16 KiB records, no SSL_sendfile), and when close_notify is (not) sent.

#include "tls/tls_engine.hpp"
#include "net/transport/tls_transport.hpp"
#include "support/memory_transport.hpp"
#include "tls/ticket_keys.hpp"
#include "tls/tls_context.hpp"
#include "tls/tls_stats.hpp"

#include "support/tls_certs.hpp"

#include <gtest/gtest.h>
#include <openssl/ssl.h>

#include <array>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace {

using stet::detail::tls_context;
using stet::detail::tls_engine;

std::shared_ptr<const tls_context> context_for(const stet::test::cert_files& files) {
  stet::tls_options o;
  o.certificates.push_back({files.certificate, files.key, {}, {}});
  stet::config_error error;
  auto built = tls_context::build(o, stet::detail::ticket_keys::generated(std::chrono::hours(1)),
                                  std::make_shared<stet::detail::tls_stats>(), error);
  EXPECT_TRUE(built) << error.message();
  return built;
}

// The client's side: an SSL over two memory BIOs; the test carries the bytes.
class memory_client {
 public:
  explicit memory_client(int max_version) : ctx_(SSL_CTX_new(TLS_client_method())) {
    SSL_CTX_set_max_proto_version(ctx_, max_version);
    ssl_ = SSL_new(ctx_);
    in_ = BIO_new(BIO_s_mem());
    out_ = BIO_new(BIO_s_mem());
    SSL_set_bio(ssl_, in_, out_);
    SSL_set_connect_state(ssl_);
  }
  memory_client(const memory_client&) = delete;
  memory_client& operator=(const memory_client&) = delete;
  ~memory_client() {
    SSL_free(ssl_);
    SSL_CTX_free(ctx_);
  }

  std::string take_output() {
    std::string bytes;
    std::array<char, 4096> chunk{};
    int n = 0;
    while ((n = BIO_read(out_, chunk.data(), chunk.size())) > 0)
      bytes.append(chunk.data(), static_cast<std::size_t>(n));
    return bytes;
  }
  void give(const std::string& bytes) {
    if (!bytes.empty()) BIO_write(in_, bytes.data(), static_cast<int>(bytes.size()));
  }
  SSL* ssl() const noexcept { return ssl_; }

 private:
  SSL_CTX* ctx_;
  SSL* ssl_ = nullptr;
  BIO* in_ = nullptr;
  BIO* out_ = nullptr;
};

// Runs the handshake to its end on both sides; the server's last flight
// (with its tickets) is left in `server_out` for the caller to pass on.
bool handshake(tls_engine& server, memory_client& client, std::string& server_out) {
  server.set_output(&server_out);
  for (int round = 0; round < 10; ++round) {
    SSL_do_handshake(client.ssl());
    const std::string in = client.take_output();
    server.set_input(in.data(), in.size());
    server.handshake();
    client.give(std::exchange(server_out, {}));
    if (server.handshake_done() && SSL_is_init_finished(client.ssl()) == 1) return true;
  }
  return false;
}

// TLS records in `bytes`: type and length of each.
std::vector<std::pair<int, std::size_t>> records(const std::string& bytes) {
  std::vector<std::pair<int, std::size_t>> found;
  std::size_t at = 0;
  while (at + 5 <= bytes.size()) {
    const auto length = static_cast<std::size_t>(static_cast<unsigned char>(bytes[at + 3]) << 8 |
                                                 static_cast<unsigned char>(bytes[at + 4]));
    found.emplace_back(static_cast<unsigned char>(bytes[at]), length);
    at += 5 + length;
  }
  return found;
}

class TlsEngine : public ::testing::Test {
 protected:
  stet::test::tls_fixture certs_;
  std::shared_ptr<const tls_context> context_ = context_for(certs_.issue("site"));
};

TEST_F(TlsEngine, Tls13HandshakeSendsOneTicket) {
  tls_engine server(context_);
  memory_client client(TLS1_3_VERSION);
  std::string out;
  ASSERT_TRUE(handshake(server, client, out));
  EXPECT_EQ(server.info().protocol, "TLSv1.3");
  EXPECT_EQ(context_->stats().tickets(stet::detail::ticket_event::issued), 1U);
  // OpenSSL's default would be two (SSL_CTX_set_num_tickets).
  SSL_set_shutdown(client.ssl(), SSL_SENT_SHUTDOWN | SSL_RECEIVED_SHUTDOWN);
}

TEST_F(TlsEngine, WithoutKernelTlsLargeBodiesAreFullRecordsEncryptedHere) {
  for (const int version : {TLS1_3_VERSION, TLS1_2_VERSION}) {
    tls_engine server(context_);
    memory_client client(version);
    std::string out;
    ASSERT_TRUE(handshake(server, client, out));
    // The transport's BIO is not a socket: OpenSSL never switches kernel TLS
    // on, so write_file() reads and encrypts (and SSL_sendfile is refused).
    EXPECT_FALSE(server.kernel_sends());
    bool blocked = true;
    EXPECT_EQ(server.send_file(0, 0, 100, blocked), -1);
    EXPECT_FALSE(blocked);

    const std::string body(40 * 1024 + 5, 'x');
    ASSERT_TRUE(server.write({body.data(), body.size()}));
    const std::vector<std::pair<int, std::size_t>> sent = records(out);
    ASSERT_EQ(sent.size(), 3U) << "version " << version;
    // 16 KiB of plaintext per record, plus the AEAD's overhead (and TLS 1.3's type byte).
    EXPECT_EQ(sent[0].second, sent[1].second);
    EXPECT_GE(sent[0].second, 16U * 1024U);
    EXPECT_LT(sent[0].second, 16U * 1024U + 64U);
    EXPECT_LT(sent[2].second, 8U * 1024U + 64U);

    client.give(out);
    std::string got;
    std::array<char, 16 * 1024> chunk{};
    int n = 0;
    while ((n = SSL_read(client.ssl(), chunk.data(), chunk.size())) > 0) got.append(chunk.data(), n);
    EXPECT_TRUE(got == body);
    SSL_set_shutdown(client.ssl(), SSL_SENT_SHUTDOWN | SSL_RECEIVED_SHUTDOWN);
  }
}

// The connection's side of a tls_transport read.
struct plain_reader {
  std::array<char, 4096> bytes{};
  std::size_t n = 0;
  boost::system::error_code ec;
  bool done = false;
  stet::detail::io_target target() {
    return {this,
            [](void* self, const boost::system::error_code& error, std::size_t count) {
              auto& r = *static_cast<plain_reader*>(self);
              r.ec = error;
              r.n = count;
              r.done = true;
            },
            [](void* self, bool /*speculative*/) noexcept {
              return std::span<char>(static_cast<plain_reader*>(self)->bytes);
            }};
  }
};

// A tls_transport over the memory transport with a finished handshake and
// one request read.
class TlsTransportClose : public TlsEngine {
 protected:
  void SetUp() override {
    transport_ = std::make_unique<stet::detail::tls_transport>(
        std::make_unique<stet::detail::memory_transport>(stream_), context_, io_);
    transport_->start_read(reader_.target(), false, std::shared_ptr<void>(keep_));
    for (int round = 0; round < 10 && !reader_.done; ++round) {
      SSL_do_handshake(client_.ssl());
      if (SSL_is_init_finished(client_.ssl()) == 1) {
        const char request[] = "GET / HTTP/1.1\r\n\r\n";
        SSL_write(client_.ssl(), request, sizeof request - 1);
      }
      if (const std::string bytes = client_.take_output(); !bytes.empty()) stream_->feed(bytes);
      io_.poll();
      io_.restart();
      client_.give(stream_->take_output());
    }
    ASSERT_TRUE(reader_.done);
    ASSERT_FALSE(reader_.ec) << reader_.ec.message();
  }
  void TearDown() override {
    transport_.reset();
    stream_->abandon();
    SSL_set_shutdown(client_.ssl(), SSL_SENT_SHUTDOWN | SSL_RECEIVED_SHUTDOWN);
  }
  // Reads once more: the peer's end of the stream (fed before).
  void read_the_end() {
    plain_reader next;
    transport_->start_read(next.target(), false, std::shared_ptr<void>(keep_));
    io_.poll();
    io_.restart();
    ASSERT_TRUE(next.done);
    EXPECT_EQ(next.ec, boost::asio::error::eof);
  }
  // Whether close() left the socket alone (no close_notify sealed and tried).
  bool close_writes_nothing() {
    const std::size_t tried = stream_->write_calls;
    transport_->close();
    return stream_->write_calls == tried;
  }
  // Whether the client reads a close_notify from what the server wrote.
  bool client_sees_close_notify() {
    client_.give(stream_->take_output());
    std::array<char, 4096> chunk{};
    while (SSL_read(client_.ssl(), chunk.data(), chunk.size()) > 0) {
    }
    return SSL_get_shutdown(client_.ssl()) & SSL_RECEIVED_SHUTDOWN;
  }

  boost::asio::io_context io_;
  std::shared_ptr<stet::detail::memory_stream> stream_ = std::make_shared<stet::detail::memory_stream>(io_);
  std::unique_ptr<stet::detail::tls_transport> transport_;
  memory_client client_{TLS1_3_VERSION};
  plain_reader reader_;
  std::shared_ptr<void> keep_ = std::make_shared<int>(0);
};

TEST_F(TlsTransportClose, CloseSendsCloseNotify) {
  transport_->close();
  EXPECT_TRUE(client_sees_close_notify());
}

// A peer whose socket refused a write (reset, broken pipe) cannot read an
// alert either: close() does not seal one and try the socket again.
TEST_F(TlsTransportClose, NoCloseNotifyAfterTheSocketRefusedAWrite) {
  stream_->write_error = boost::asio::error::broken_pipe;
  const char answer[] = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n";
  const iovec piece{const_cast<char*>(answer), sizeof answer - 1};  // NOLINT: iovec is not const
  boost::system::error_code ec;
  transport_->write_some({&piece, 1}, ec);
  EXPECT_EQ(ec, boost::asio::error::broken_pipe);
  EXPECT_TRUE(close_writes_nothing());
}

// A peer that ended its stream without close_notify (closed its socket, as
// browsers do) reads nothing more: close() seals no alert and sends nothing.
TEST_F(TlsTransportClose, NoCloseNotifyAfterThePeerEndedTheStream) {
  stream_->feed_eof();
  read_the_end();
  EXPECT_TRUE(close_writes_nothing());
}

// A close_notify of the peer's own is answered with ours.
TEST_F(TlsTransportClose, PeersCloseNotifyIsAnswered) {
  SSL_shutdown(client_.ssl());
  stream_->feed(client_.take_output());
  stream_->feed_eof();
  read_the_end();
  transport_->close();
  EXPECT_TRUE(client_sees_close_notify());
}

}  // namespace
