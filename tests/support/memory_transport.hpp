#pragma once
// An in-memory transport for tests and fuzzing: the test plays the peer,
// feeding input in chunks (each read returns at most one chunk, so a test
// decides exactly where the bytes are split) and reading what was written.

#include "net/asio.hpp"
#include "net/transport/transport.hpp"

#include <cstddef>
#include <deque>
#include <limits>
#include <memory>
#include <string>
#include <string_view>

namespace stet::detail {

/// The peer's side of a memory_transport; shared by the test and the transport.
/// Everything runs on the io_context's thread.
class memory_stream : public std::enable_shared_from_this<memory_stream> {
 public:
  explicit memory_stream(asio::io_context& io) : io_(io) {}

  /// Queues `bytes` as one chunk for the connection to read.
  void feed(std::string_view bytes);
  /// After the queued chunks, the connection reads an end of stream.
  void feed_eof();

  /// What the connection wrote so far.
  const std::string& output() const noexcept { return output_; }
  std::string take_output() { return std::exchange(output_, {}); }
  /// Chunks not read yet.
  std::size_t unread_chunks() const noexcept { return input_.size(); }
  bool shut_down() const noexcept { return shut_down_; }
  bool closed() const noexcept { return closed_; }
  /// Drops a parked read without completing it, as destroying an io_context
  /// drops a socket's pending read. The parked read keeps its connection
  /// alive, and the connection owns this stream through its transport: the
  /// owner of the loop calls this before the loop goes, or that cycle leaks.
  void abandon() noexcept;

  /// Each write accepts at most this many bytes (to exercise partial writes).
  std::size_t write_limit = std::numeric_limits<std::size_t>::max();
  /// This many writes from now on take nothing (would_block) first.
  std::size_t blocked_writes = 0;
  /// While set, every write fails with it (a reset or broken pipe).
  boost::system::error_code write_error;
  /// Writes tried so far, failed ones included.
  std::size_t write_calls = 0;

 private:
  friend class memory_transport;
  void start_read(const io_target& t, std::shared_ptr<void>&& keep);
  void complete_read();
  void watch(const io_target& t, std::shared_ptr<void>&& keep);
  void complete_watch(bool cancelled);
  std::size_t write(std::string_view bytes, boost::system::error_code& ec) noexcept;
  void close() noexcept;

  asio::io_context& io_;
  std::deque<std::string> input_;
  bool eof_ = false;
  std::string output_;
  bool shut_down_ = false;
  bool closed_ = false;
  bool read_parked_ = false;
  io_target read_;
  std::shared_ptr<void> read_keep_;
  bool watch_parked_ = false;
  io_target watch_;
  std::shared_ptr<void> watch_keep_;
};

class memory_transport final : public transport {
 public:
  explicit memory_transport(std::shared_ptr<memory_stream> stream) : stream_(std::move(stream)) {}
  ~memory_transport() override { stream_->close(); }

  void start_read(const io_target& t, bool answered, std::shared_ptr<void>&& keep) override;
  std::size_t write_some(std::span<const iovec> pieces, boost::system::error_code& ec) noexcept override;
  std::size_t write_file(int fd, std::uint64_t offset, std::size_t length,
                         boost::system::error_code& ec) noexcept override;
  void wait_writable(const io_target& t, std::shared_ptr<void>&& keep) override;
  std::size_t available() noexcept override;
  void watch_peer(const io_target& t, std::shared_ptr<void>&& keep) override { stream_->watch(t, std::move(keep)); }
  void shutdown_send() noexcept override { stream_->shut_down_ = true; }
  void cancel() noexcept override;
  void close() noexcept override { stream_->close(); }

 private:
  std::shared_ptr<memory_stream> stream_;
};

}  // namespace stet::detail
