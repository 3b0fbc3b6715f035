#pragma once
// The byte stream under a connection: plain TCP, a unix socket, TLS, or an
// in-memory stream in tests. The connection's HTTP state machine sees only
// these operations, so a new transport never touches HTTP logic and the HTTP
// logic is testable without sockets.
//
// A tiny virtual interface rather than a connection templated on its
// transport: a keep-alive request makes three calls through it (read, write,
// the answered-read bookkeeping), a few nanoseconds against the microsecond
// each system call costs here, and one state machine is compiled once instead
// of once per transport (see docs/architecture.md for the measurement).

#include <sys/uio.h>

#include <boost/system/error_code.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

namespace stet {
struct tls_info;
}

namespace stet::detail {

/// Where a read puts its bytes, asked for only when the read is tried, so a
/// connection waiting for its next request holds no buffer. `speculative`:
/// the read is tried before anything says bytes are there (it may find
/// none); the target may then answer with an empty span rather than take a
/// buffer for nothing, and is asked again once bytes are known to be there.
using io_buffer_fn = std::span<char> (*)(void* target, bool speculative) noexcept;
/// How an operation ends, on the worker thread: an error (eof included) or the
/// bytes transferred.
using io_done_fn = void (*)(void* target, const boost::system::error_code& ec, std::size_t bytes);

/// Who a transport operation reports to.
struct io_target {
  void* self = nullptr;
  io_done_fn done = nullptr;
  io_buffer_fn buffer = nullptr;  ///< reads only
};

class transport {
 public:
  virtual ~transport() = default;

  /// Starts one read: when bytes, end of stream or an error are ready, asks
  /// `t.buffer` where to put them, reads once and calls `t.done`. `answered`:
  /// a response was written since the last read completed (a TCP transport
  /// then skips a read that cannot succeed). `keep` is held until `t.done`
  /// has run, or the event loop is destroyed with the read still queued.
  /// At most one read is outstanding.
  virtual void start_read(const io_target& t, bool answered, std::shared_ptr<void>&& keep) = 0;

  /// Writes as much of `pieces` as the stream takes now, never waiting: 0 with
  /// `would_block` when it takes nothing. A transport may keep what it
  /// accepted in its own bounded buffer (TLS records); see output_pending().
  virtual std::size_t write_some(std::span<const iovec> pieces, boost::system::error_code& ec) noexcept = 0;

  /// Writes up to `length` bytes of file `fd` from `offset` now, never waiting
  /// (sendfile(2) where the transport allows it). 0 with `would_block` when
  /// the stream takes nothing; 0 without an error when the file ended early.
  virtual std::size_t write_file(int fd, std::uint64_t offset, std::size_t length,
                                 boost::system::error_code& ec) noexcept = 0;

  /// Bytes accepted by write_some()/write_file() that are not on the wire yet.
  /// The connection counts a response as written only when this is false.
  virtual bool output_pending() const noexcept { return false; }

  /// Calls `t.done` when the stream can take more (after pushing out what
  /// output_pending() holds). `keep` as for start_read().
  virtual void wait_writable(const io_target& t, std::shared_ptr<void>&& keep) = 0;

  /// Bytes a read would return at once (an end of stream alone counts 0).
  virtual std::size_t available() noexcept = 0;

  /// Reads nothing, but calls `t.done` once the peer has sent something or is
  /// gone: with no error when bytes are there to read, with eof (or the
  /// error) when it closed or reset. A connection waiting for a handler's
  /// answer learns this way that its client left. cancel() ends it. `keep`
  /// as for start_read(). The default never calls: the departure is noticed
  /// at the next read or write instead.
  virtual void watch_peer(const io_target& t, std::shared_ptr<void>&& keep) { (void)t, (void)keep; }

  /// Ends the sending direction once what was written is out (FIN, close_notify).
  virtual void shutdown_send() noexcept = 0;
  /// Ends the read and wait in flight; they complete with operation_aborted.
  virtual void cancel() noexcept = 0;
  /// Closes the stream; operations in flight complete with operation_aborted.
  virtual void close() noexcept = 0;

  /// What the stream's TLS session negotiated, once its handshake is done; null
  /// for a plain stream. A non-null answer is what makes the connection (and its
  /// requests: request::is_secure()) https; it stays valid as long as the transport.
  virtual const stet::tls_info* tls() const noexcept { return nullptr; }
};

}  // namespace stet::detail
