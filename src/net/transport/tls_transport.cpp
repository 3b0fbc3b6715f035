#include "net/transport/tls_transport.hpp"

#include "tls/tls_service.hpp"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>

namespace stet::detail {

std::unique_ptr<transport> secured(std::unique_ptr<transport> stream, tls_service* tls, asio::io_context& io) {
  if (tls == nullptr) return stream;
  return std::make_unique<tls_transport>(std::move(stream), tls->current(), io);
}

namespace {

constexpr std::size_t record_bytes = 16 * 1024;
// Plaintext one write_some()/write_file() call encrypts at most: four full
// records, so the ciphertext waiting for a full socket stays bounded.
constexpr std::size_t write_budget = 4 * record_bytes;

bool would_block(const boost::system::error_code& ec) noexcept {
  return ec == asio::error::would_block || ec == asio::error::try_again;
}

boost::system::error_code tls_failure() noexcept {
  return boost::system::errc::make_error_code(boost::system::errc::protocol_error);
}

// Small pieces (a head, a short body) are gathered into full records rather
// than each becoming a record of its own; large aligned runs go straight in.
struct record_stage {
  std::array<char, record_bytes> bytes;
  std::size_t used = 0;
};

record_stage& stage() {
  thread_local record_stage s;
  return s;
}

std::array<char, record_bytes>& file_chunk() {
  thread_local std::array<char, record_bytes> chunk;
  return chunk;
}

}  // namespace

tls_transport::tls_transport(std::unique_ptr<transport> inner, std::shared_ptr<const tls_context> context,
                             asio::io_context& io)
    : inner_(std::move(inner)), engine_(std::move(context)), io_(io) {}

tls_transport::~tls_transport() {
  if (!counted_ && engine_.ok()) handshake_failed(handshake_failure::aborted);
}

const stet::tls_info* tls_transport::tls() const noexcept {
  return engine_.handshake_done() ? &engine_.info() : nullptr;
}

void tls_transport::start_read(const io_target& t, bool answered, std::shared_ptr<void>&& keep) {
  if (shut_) {
    // After our close_notify the connection only drains what the client still sends.
    inner_->start_read(t, answered, std::move(keep));
    return;
  }
  reader_ = t;
  cancelled_ = false;
  if (owner_.expired()) owner_ = keep;
  if (!engine_.ok()) {
    asio::post(io_, [this, keep = std::move(keep)] { finish(asio::error::no_memory, 0); });
    return;
  }
  if (!engine_.handshake_done() && !handshake_timer_) arm_handshake_timer();
  if (input_.size() > 0 || engine_.has_buffered()) {
    // Bytes already here (pipelined requests): complete from the loop, never
    // inside this call.
    asio::post(io_, [this, keep = std::move(keep)] { advance(); });
    return;
  }
  read_ciphertext(answered, std::move(keep));
}

void tls_transport::read_ciphertext(bool answered, std::shared_ptr<void>&& keep) {
  inner_->start_read({this, &tls_transport::ciphertext_read, &tls_transport::ciphertext_buffer}, answered,
                     std::move(keep));
}

// The input block is taken only when the read is tried and bytes may be
// there, so a connection waiting for its next request holds none.
std::span<char> tls_transport::ciphertext_buffer(void* self, bool speculative) noexcept {
  auto& s = *static_cast<tls_transport*>(self);
  if (speculative && !s.input_.held()) return {};
  std::size_t size = 0;
  char* at = s.input_.room(size);
  return {at, size};
}

void tls_transport::ciphertext_read(void* self, const boost::system::error_code& ec, std::size_t n) {
  static_cast<tls_transport*>(self)->on_ciphertext(ec, n);
}

void tls_transport::on_ciphertext(const boost::system::error_code& ec, std::size_t n) {
  if (ec) {
    // A reset, or an end of the stream without close_notify (what browsers
    // and most clients do: they closed the socket), leaves nobody to read our
    // close_notify; sealing it and the send the peer's kernel answers with a
    // reset would be all it did (nginx does not send one either). A
    // close_notify of the peer's own is still answered (the engine's closed).
    if (ec == asio::error::connection_reset || ec == asio::error::eof) peer_gone_ = true;
    if (!engine_.handshake_done()) {
      handshake_failed(timed_out_                                            ? handshake_failure::timeout
                       : ec == asio::error::operation_aborted && !cancelled_ ? handshake_failure::aborted
                                                                             : handshake_failure::closed);
    }
    // A peer that closes without close_notify after its last request is
    // simply done: an end of stream, not an error.
    finish(timed_out_ ? asio::error::timed_out : ec, 0);
    return;
  }
  if (!engine_.handshake_done() && first_byte_ == std::chrono::steady_clock::time_point{}) {
    first_byte_ = std::chrono::steady_clock::now();
  }
  input_.filled(n);
  advance();
}

void tls_transport::advance() {
  if (closed_ || cancelled_ || timed_out_) {
    finish(timed_out_ ? asio::error::timed_out : asio::error::operation_aborted, 0);
    return;
  }
  if (!engine_.handshake_done() && !advance_handshake()) return;
  if (input_.size() == 0 && !engine_.has_buffered()) {
    read_ciphertext(false, owner_.lock());
    return;
  }
  const std::span<char> into = reader_.buffer(reader_.self, false);
  engine_.set_input(input_.data(), input_.size());
  engine_.set_output(&output_.sink());
  std::size_t n = 0;
  const tls_engine::result r = engine_.read(into, n);
  input_.consume(engine_.input_used());
  switch (r) {
    case tls_engine::result::done: deliver({}, n); return;
    case tls_engine::result::want_input: read_ciphertext(false, owner_.lock()); return;
    case tls_engine::result::closed: deliver(asio::error::eof, 0); return;
    case tls_engine::result::failed: {
      boost::system::error_code ignored;
      flush(ignored);  // the alert, if the socket takes it
      finish(tls_failure(), 0);
      return;
    }
  }
}

// False when the handshake is not done yet (a read or a wait was started, or
// the read finished with an error).
bool tls_transport::advance_handshake() {
  engine_.set_input(input_.data(), input_.size());
  engine_.set_output(&output_.sink());
  const tls_engine::result r = engine_.handshake();
  input_.consume(engine_.input_used());
  boost::system::error_code ec;
  const bool flight = output_.pending();
  const flushed sent = flush(ec);
  if (r == tls_engine::result::failed || sent == flushed::failed) {
    if (r == tls_engine::result::failed) handshake_failed(engine_.failure());
    finish(r == tls_engine::result::failed ? tls_failure() : ec, 0);
    return false;
  }
  if (sent == flushed::blocked) {
    // The client waits for our flight: send it before reading further.
    wait_to_send(true);
    return false;
  }
  if (r == tls_engine::result::want_input) {
    // A flight just went out whole: the client answers it, so nothing of its
    // answer can be there yet (the read waits for it untried, as after a response).
    read_ciphertext(flight, owner_.lock());
    return false;
  }
  counted_ = true;
  if (handshake_timer_) handshake_timer_->cancel();
  const tls_info& info = engine_.info();
  const auto took = first_byte_ == std::chrono::steady_clock::time_point{}
                        ? std::chrono::nanoseconds(0)
                        : std::chrono::steady_clock::now() - first_byte_;
  engine_.context().stats().handshake_done(info.resumed, info.protocol.data(), info.cipher.data(), took);
  return true;
}

// Hands plaintext (or the end) to the connection once whatever the session
// wrote meanwhile (tickets, a key update) is on its way.
void tls_transport::deliver(const boost::system::error_code& ec, std::size_t n) {
  boost::system::error_code send_ec;
  switch (flush(send_ec)) {
    case flushed::all: finish(ec, n); return;
    case flushed::failed: finish(send_ec, 0); return;
    case flushed::blocked:
      if (ec) {
        finish(ec, 0);
        return;
      }
      delivered_ = n;
      delivering_ = true;
      wait_to_send(true);
      return;
  }
}

void tls_transport::finish(const boost::system::error_code& ec, std::size_t n) {
  const io_target t = std::exchange(reader_, io_target{});
  if (input_.size() == 0) input_.release();
  if (!output_.pending()) output_.release();
  if (t.done != nullptr) t.done(t.self, ec, n);
}

void tls_transport::wait_to_send(bool for_reader) {
  inner_->wait_writable({this, for_reader ? &tls_transport::reader_writable : &tls_transport::writer_writable, nullptr},
                        owner_.lock());
}

void tls_transport::reader_writable(void* self, const boost::system::error_code& ec, std::size_t /*bytes*/) {
  auto& s = *static_cast<tls_transport*>(self);
  if (s.reader_.done == nullptr) return;
  boost::system::error_code send_ec = ec;
  const flushed sent = ec ? flushed::failed : s.flush(send_ec);
  if (sent == flushed::blocked) {
    s.wait_to_send(true);
    return;
  }
  if (sent == flushed::failed) {
    s.finish(send_ec, 0);
    return;
  }
  if (s.delivering_) {
    s.delivering_ = false;
    s.finish({}, std::exchange(s.delivered_, 0));
    return;
  }
  s.advance();
}

void tls_transport::writer_writable(void* self, const boost::system::error_code& ec, std::size_t /*bytes*/) {
  auto& s = *static_cast<tls_transport*>(self);
  const io_target t = s.writer_;
  boost::system::error_code send_ec = ec;
  const flushed sent = ec ? flushed::failed : s.flush(send_ec);
  if (sent == flushed::blocked) {
    s.wait_to_send(false);
    return;
  }
  s.writer_ = io_target{};
  if (t.done != nullptr) t.done(t.self, sent == flushed::all ? boost::system::error_code() : send_ec, 0);
}

void tls_transport::arm_handshake_timer() {
  handshake_timer_.emplace(io_);
  handshake_timer_->expires_after(engine_.context().handshake_timeout());
  handshake_timer_->async_wait([this, owner = owner_](const boost::system::error_code& ec) {
    if (ec) return;  // cancelled: the handshake ended, or the transport is gone
    const std::shared_ptr<void> alive = owner.lock();
    if (!alive || closed_ || engine_.handshake_done()) return;
    timed_out_ = true;
    handshake_failed(handshake_failure::timeout);
    inner_->cancel();  // the read (or wait) in flight ends; advance() sees timed_out_
  });
}

void tls_transport::handshake_failed(handshake_failure why) noexcept {
  if (counted_) return;
  counted_ = true;
  engine_.context().stats().handshake_failed(why);
}

tls_transport::flushed tls_transport::flush(boost::system::error_code& ec) noexcept {
  while (output_.pending()) {
    const iovec piece{const_cast<char*>(output_.unsent()), output_.unsent_size()};  // NOLINT: iovec is not const
    const std::size_t n = inner_->write_some({&piece, 1}, ec);
    if (would_block(ec) || (!ec && n == 0)) {
      ec = {};
      return flushed::blocked;
    }
    if (ec) {
      peer_gone_ = true;
      return flushed::failed;
    }
    output_.sent(n);
  }
  output_.release();
  return flushed::all;
}

// Whatever an earlier call left unsent must go before new records.
bool tls_transport::ready_to_write(boost::system::error_code& ec) noexcept {
  if (closed_ || !engine_.handshake_done() || shut_) {
    ec = asio::error::not_connected;
    return false;
  }
  if (!output_.pending()) return true;
  if (flush(ec) == flushed::all) return true;
  if (!ec) ec = asio::error::would_block;
  return false;
}

bool tls_transport::encrypt(std::span<const iovec> pieces, std::size_t& accepted) noexcept {
  record_stage& staged = stage();
  staged.used = 0;
  accepted = 0;
  for (const iovec& piece : pieces) {
    const char* at = static_cast<const char*>(piece.iov_base);
    std::size_t left = std::min(piece.iov_len, write_budget - accepted);
    while (left > 0) {
      if (staged.used == 0 && left >= record_bytes) {
        const std::size_t whole = left - left % record_bytes;
        if (!engine_.write({at, whole})) return false;
        at += whole;
        left -= whole;
        accepted += whole;
        continue;
      }
      const std::size_t take = std::min(record_bytes - staged.used, left);
      std::memcpy(staged.bytes.data() + staged.used, at, take);
      staged.used += take;
      at += take;
      left -= take;
      accepted += take;
      if (staged.used == record_bytes) {
        if (!engine_.write({staged.bytes.data(), record_bytes})) return false;
        staged.used = 0;
      }
    }
    if (accepted == write_budget) break;
  }
  return staged.used == 0 || engine_.write({staged.bytes.data(), staged.used});
}

std::size_t tls_transport::write_some(std::span<const iovec> pieces, boost::system::error_code& ec) noexcept {
  if (!ready_to_write(ec)) return 0;
  std::string* sink = nullptr;
  try {
    sink = &output_.sink();
  } catch (const std::bad_alloc&) {
    ec = asio::error::no_memory;
    return 0;
  }
  engine_.set_output(sink);
  std::size_t accepted = 0;
  if (!encrypt(pieces, accepted)) {
    ec = tls_failure();
    return 0;
  }
  // Accepted is accepted: what the socket does not take now waits here
  // (output_pending()) and goes first next time.
  if (flush(ec) == flushed::failed) return 0;
  ec = {};
  return accepted;
}

// With kernel TLS the kernel reads and encrypts the file (SSL_sendfile).
// Without it (the transport's own BIO, or a kernel without the TLS ULP) the
// file is read a record at a time and encrypted here: at most write_budget of
// it is in memory at once, never the whole file.
std::size_t tls_transport::write_file(int fd, std::uint64_t offset, std::size_t length,
                                      boost::system::error_code& ec) noexcept {
  if (!ready_to_write(ec)) return 0;
  if (engine_.kernel_sends()) return send_file_in_kernel(fd, offset, length, ec);
  try {
    engine_.set_output(&output_.sink());
  } catch (const std::bad_alloc&) {
    ec = asio::error::no_memory;
    return 0;
  }
  std::array<char, record_bytes>& chunk = file_chunk();
  std::size_t total = 0;
  while (total < length && total < write_budget) {
    const std::size_t want = std::min(length - total, chunk.size());
    const ssize_t n = ::pread(fd, chunk.data(), want, static_cast<off_t>(offset + total));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      ec = {errno, boost::system::system_category()};
      return 0;
    }
    if (n == 0) break;  // the file ended early: the caller sees a short count
    if (!engine_.write({chunk.data(), static_cast<std::size_t>(n)})) {
      ec = tls_failure();
      return 0;
    }
    total += static_cast<std::size_t>(n);
  }
  if (flush(ec) == flushed::failed) return 0;
  ec = {};
  return total;
}

std::size_t tls_transport::send_file_in_kernel(int fd, std::uint64_t offset, std::size_t length,
                                               boost::system::error_code& ec) noexcept {
  bool blocked = false;
  const std::ptrdiff_t n = engine_.send_file(fd, offset, length, blocked);
  if (n < 0) {
    peer_gone_ = true;
    ec = tls_failure();
    return 0;
  }
  ec = blocked ? boost::system::error_code(asio::error::would_block) : boost::system::error_code();
  return static_cast<std::size_t>(n);
}

void tls_transport::wait_writable(const io_target& t, std::shared_ptr<void>&& keep) {
  if (!output_.pending()) {
    inner_->wait_writable(t, std::move(keep));
    return;
  }
  writer_ = t;
  inner_->wait_writable({this, &tls_transport::writer_writable, nullptr}, std::move(keep));
}

std::size_t tls_transport::available() noexcept {
  // Mid-handshake, what this transport holds is part of a flight (a complete
  // one was answered as it came): like a partial head it is no request on its
  // way; only bytes still in the kernel are.
  if (!engine_.handshake_done()) return inner_->available();
  const std::size_t inside = engine_.buffered_plaintext() + (engine_.has_buffered() ? 1 : 0);
  return inside + input_.size() + inner_->available();
}

// Sent once, as far as the socket takes it now: nothing waits for it. Not to
// a peer already gone (reset, its stream ended, or a write refused): sealing
// the alert and a send that fails would be all it cost (most clients close
// that way).
void tls_transport::send_close_notify() noexcept {
  if (shut_ || closed_) return;
  shut_ = true;
  if (peer_gone_) return;
  try {
    engine_.set_output(&output_.sink());
    engine_.close_notify();
    boost::system::error_code ignored;
    flush(ignored);
  } catch (const std::bad_alloc&) {
  }
}

void tls_transport::shutdown_send() noexcept {
  send_close_notify();
  output_.release();  // a close_notify the socket would not take is not waited for
  inner_->shutdown_send();
}

void tls_transport::cancel() noexcept {
  cancelled_ = true;
  inner_->cancel();
}

void tls_transport::close() noexcept {
  if (closed_) return;
  send_close_notify();
  closed_ = true;
  if (!engine_.handshake_done()) handshake_failed(handshake_failure::aborted);
  if (handshake_timer_) handshake_timer_->cancel();
  output_.release();
  inner_->close();
}

}  // namespace stet::detail
