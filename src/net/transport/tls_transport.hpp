#pragma once
// HTTPS: a TLS session over another transport (TCP, a unix socket, or memory
// in tests). The handshake runs inside the first reads; afterwards a read
// decrypts into the buffer the connection gives (asked for lazily, as the
// plain transports do), and a write encrypts into whole records that go out in
// one send. Ciphertext the socket does not take at once stays here and is
// reported by output_pending(), so the connection's "write now, wait only
// when full" loop works unchanged.
//
// Why not asio::ssl::stream: it keeps four 17 KiB buffers per stream for the
// connection's whole life (its engine's BIO pair and its own input and output
// buffers), 68 KiB against an idle budget of 8 KiB; its synchronous
// write_some on a non-blocking socket drops the records it encrypted when the
// socket says would_block; and its reads bypass socket_read (the speculative
// recv it saves) and the lazily-asked buffer (docs/tls.md; not benchmarked
// against asio::ssl::stream).

#include "net/asio.hpp"
#include "net/transport/transport.hpp"
#include "tls/record_buffers.hpp"
#include "tls/tls_engine.hpp"

#include <chrono>
#include <memory>
#include <optional>
#include <utility>

namespace stet::detail {

class tls_service;

/// `stream` as it is for a plain listener (`tls` null), else inside a TLS
/// session from the context `tls` holds now, run on `io` (the loop of the
/// worker that will own it): a reload afterwards does not touch the session.
std::unique_ptr<transport> secured(std::unique_ptr<transport> stream, tls_service* tls, asio::io_context& io);

class tls_transport final : public transport {
 public:
  /// Runs a server-side TLS session from `context` over `inner`, on `io`
  /// (the worker's loop: posted completions and the handshake timer).
  tls_transport(std::unique_ptr<transport> inner, std::shared_ptr<const tls_context> context, asio::io_context& io);
  tls_transport(const tls_transport&) = delete;
  tls_transport& operator=(const tls_transport&) = delete;
  ~tls_transport() override;

  void start_read(const io_target& t, bool answered, std::shared_ptr<void>&& keep) override;
  std::size_t write_some(std::span<const iovec> pieces, boost::system::error_code& ec) noexcept override;
  std::size_t write_file(int fd, std::uint64_t offset, std::size_t length,
                         boost::system::error_code& ec) noexcept override;
  bool output_pending() const noexcept override { return output_.pending(); }
  void wait_writable(const io_target& t, std::shared_ptr<void>&& keep) override;
  std::size_t available() noexcept override;
  /// Watches the raw stream: a record (whatever it holds) counts as bytes,
  /// its end or reset as the client gone; nothing is decrypted meanwhile.
  void watch_peer(const io_target& t, std::shared_ptr<void>&& keep) override { inner_->watch_peer(t, std::move(keep)); }
  void shutdown_send() noexcept override;
  void cancel() noexcept override;
  void close() noexcept override;
  const stet::tls_info* tls() const noexcept override;

 private:
  enum class flushed : std::uint8_t { all, blocked, failed };

  void read_ciphertext(bool answered, std::shared_ptr<void>&& keep);
  static std::span<char> ciphertext_buffer(void* self, bool speculative) noexcept;
  static void ciphertext_read(void* self, const boost::system::error_code& ec, std::size_t n);
  void on_ciphertext(const boost::system::error_code& ec, std::size_t n);
  void advance();
  bool advance_handshake();
  void deliver(const boost::system::error_code& ec, std::size_t n);
  void finish(const boost::system::error_code& ec, std::size_t n);
  void wait_to_send(bool for_reader);
  static void reader_writable(void* self, const boost::system::error_code& ec, std::size_t);
  static void writer_writable(void* self, const boost::system::error_code& ec, std::size_t);
  void arm_handshake_timer();
  void handshake_failed(handshake_failure why) noexcept;

  flushed flush(boost::system::error_code& ec) noexcept;
  bool encrypt(std::span<const iovec> pieces, std::size_t& accepted) noexcept;
  std::size_t send_file_in_kernel(int fd, std::uint64_t offset, std::size_t length,
                                  boost::system::error_code& ec) noexcept;
  bool ready_to_write(boost::system::error_code& ec) noexcept;
  void send_close_notify() noexcept;

  std::unique_ptr<transport> inner_;
  tls_engine engine_;
  asio::io_context& io_;
  cipher_input input_;
  cipher_output output_;
  io_target reader_;  // the connection's read in progress (done == nullptr: none)
  io_target writer_;  // the connection's wait for writability in progress
  // The connection, for the reads and waits this transport starts on its own
  // behalf; weak, since the connection owns this transport.
  std::weak_ptr<void> owner_;
  std::optional<asio::steady_timer> handshake_timer_;
  std::chrono::steady_clock::time_point first_byte_{};
  std::size_t delivered_ = 0;  // plaintext read, held back until the session's output is sent
  bool delivering_ = false;
  bool counted_ = false;  // the handshake's outcome is in the stats
  bool timed_out_ = false;
  bool cancelled_ = false;
  bool shut_ = false;       // close_notify sent: later reads only drain the raw stream
  bool peer_gone_ = false;  // reset, ended without close_notify, or refused a write: no close_notify
  bool closed_ = false;
};

}  // namespace stet::detail
