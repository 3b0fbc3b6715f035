#include "support/memory_transport.hpp"

#include <unistd.h>

#include <algorithm>
#include <array>

namespace stet::detail {

void memory_stream::feed(std::string_view bytes) {
  input_.emplace_back(bytes);
  if (read_parked_) complete_read();
  if (watch_parked_) complete_watch(false);
}

void memory_stream::feed_eof() {
  eof_ = true;
  if (read_parked_) complete_read();
  if (watch_parked_) complete_watch(false);
}

void memory_stream::watch(const io_target& t, std::shared_ptr<void>&& keep) {
  watch_ = t;
  watch_keep_ = std::move(keep);
  watch_parked_ = true;
  if (!input_.empty() || eof_ || closed_) complete_watch(false);
}

void memory_stream::complete_watch(bool cancelled) {
  watch_parked_ = false;
  asio::post(io_, [self = shared_from_this(), t = watch_, keep = std::move(watch_keep_), cancelled] {
    boost::system::error_code ec;
    if (cancelled || self->closed_) {
      ec = asio::error::operation_aborted;
    } else if (self->input_.empty()) {
      ec = asio::error::eof;
    }
    t.done(t.self, ec, 0);
  });
}

void memory_stream::start_read(const io_target& t, std::shared_ptr<void>&& keep) {
  read_ = t;
  read_keep_ = std::move(keep);
  read_parked_ = true;
  if (!input_.empty() || eof_ || closed_) {
    complete_read();
    return;
  }
  // A socket tries the read at once and finds nothing; the target learns of
  // the try the same way (and may keep its buffer out of it).
  t.buffer(t.self, true);
}

// Completions are posted, as a socket's are: never inside the call that started the read.
void memory_stream::complete_read() {
  read_parked_ = false;
  asio::post(io_, [self = shared_from_this(), t = read_, keep = std::move(read_keep_)] {
    memory_stream& s = *self;
    boost::system::error_code ec;
    std::size_t n = 0;
    if (s.closed_) {
      ec = asio::error::operation_aborted;
    } else if (s.input_.empty()) {
      ec = asio::error::eof;
    } else {
      const std::span<char> into = t.buffer(t.self, false);
      std::string& chunk = s.input_.front();
      n = std::min(into.size(), chunk.size());
      std::copy_n(chunk.data(), n, into.data());
      chunk.erase(0, n);
      if (chunk.empty()) s.input_.pop_front();
    }
    t.done(t.self, ec, n);
  });
}

std::size_t memory_stream::write(std::string_view bytes, boost::system::error_code& ec) noexcept {
  ++write_calls;
  if (write_error) {
    ec = write_error;
    return 0;
  }
  if (closed_ || shut_down_) {
    ec = asio::error::broken_pipe;
    return 0;
  }
  if (blocked_writes > 0) {
    --blocked_writes;
    ec = asio::error::would_block;
    return 0;
  }
  ec = {};
  const std::size_t n = std::min(bytes.size(), write_limit);
  output_.append(bytes.substr(0, n));
  return n;
}

void memory_stream::close() noexcept {
  closed_ = true;
  if (read_parked_) complete_read();
  if (watch_parked_) complete_watch(true);
}

void memory_stream::abandon() noexcept {
  read_parked_ = false;
  read_ = {};
  read_keep_.reset();
}

void memory_transport::start_read(const io_target& t, bool /*answered*/, std::shared_ptr<void>&& keep) {
  stream_->start_read(t, std::move(keep));
}

std::size_t memory_transport::write_some(std::span<const iovec> pieces, boost::system::error_code& ec) noexcept {
  std::size_t total = 0;
  for (const iovec& piece : pieces) {
    const std::size_t n = stream_->write({static_cast<const char*>(piece.iov_base), piece.iov_len}, ec);
    total += n;
    if (ec || n < piece.iov_len) break;
  }
  if (total > 0) ec = {};
  return total;
}

std::size_t memory_transport::write_file(int fd, std::uint64_t offset, std::size_t length,
                                         boost::system::error_code& ec) noexcept {
  std::array<char, 16 * 1024> chunk{};
  const ssize_t n = ::pread(fd, chunk.data(), std::min(length, chunk.size()), static_cast<off_t>(offset));
  if (n < 0) {
    ec = {errno, boost::system::system_category()};
    return 0;
  }
  return stream_->write({chunk.data(), static_cast<std::size_t>(n)}, ec);
}

void memory_transport::wait_writable(const io_target& t, std::shared_ptr<void>&& keep) {
  asio::post(stream_->io_, [t, keep = std::move(keep), stream = stream_] {
    t.done(t.self, stream->closed_ ? asio::error::operation_aborted : boost::system::error_code(), 0);
  });
}

std::size_t memory_transport::available() noexcept {
  std::size_t n = 0;
  for (const std::string& chunk : stream_->input_) n += chunk.size();
  return n;
}

void memory_transport::cancel() noexcept {
  // A parked read or watch ends now; one already posted completes as it was.
  if (stream_->watch_parked_) stream_->complete_watch(true);
  if (!stream_->read_parked_) return;
  stream_->read_parked_ = false;
  asio::post(stream_->io_, [t = stream_->read_, keep = std::move(stream_->read_keep_)] {
    t.done(t.self, asio::error::operation_aborted, 0);
  });
}

}  // namespace stet::detail
