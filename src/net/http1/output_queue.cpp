#include "net/http1/output_queue.hpp"

#include <boost/asio/error.hpp>

#include <algorithm>

namespace stet::detail {
namespace {

// A batch that grew the buffer past this gives it back rather than keep it.
constexpr std::size_t retained_output_bytes = 256 * 1024;
// sendfile(2) moves at most this much per call, so one large file cannot
// hold the worker for long.
constexpr std::size_t file_piece_bytes = std::size_t{1} << 22;

bool would_block(const boost::system::error_code& ec) noexcept {
  return ec == boost::asio::error::would_block || ec == boost::asio::error::try_again;
}

}  // namespace

void output_queue::attach(response&& r) {
  const std::string_view bytes = r.file() != nullptr ? std::string_view() : r.body();
  attached_bytes_ += r.file() != nullptr ? attach_threshold : bytes.size();
  attached_.push_back(attached_body{out_.size(), bytes, std::move(r)});
}

void output_queue::attach_view(std::string_view bytes) {
  attached_bytes_ += bytes.size();
  attached_.push_back(attached_body{out_.size(), bytes, response()});
}

output_queue::progress output_queue::write(transport& t) noexcept {
  if (attached_.empty() && out_sent_ == 0 && !out_.empty()) return write_text_only(t);
  for (;;) {
    if (gather_.empty()) {
      if (next_attached_ == attached_.size() && out_sent_ == out_.size()) {
        return t.output_pending() ? progress::blocked : progress::done;
      }
      if (file_is_next()) {
        const progress p = send_file(t);
        if (p != progress::done) return p;
        continue;
      }
      gather_next();
    }
    const progress p = send_gather(t);
    if (p != progress::done) return p;
  }
}

// The common batch, heads and small bodies only: one piece, no gather list.
output_queue::progress output_queue::write_text_only(transport& t) noexcept {
  iovec whole{out_.data(), out_.size()};
  boost::system::error_code ec;
  const std::size_t sent = t.write_some({&whole, 1}, ec);
  if (ec && !would_block(ec)) return progress::failed;
  out_sent_ = out_.size();
  if (sent == out_.size()) return t.output_pending() ? progress::blocked : progress::done;
  gather_.push_back(iovec{out_.data() + sent, out_.size() - sent});
  return progress::blocked;
}

bool output_queue::file_is_next() const noexcept {
  return next_attached_ < attached_.size() && out_sent_ == attached_[next_attached_].offset &&
         attached_[next_attached_].owner.file() != nullptr;
}

// Memory pieces in order, up to the next file body.
void output_queue::gather_next() {
  const auto gather = [this](const char* data, std::size_t size) {
    if (size > 0) gather_.push_back(iovec{const_cast<char*>(data), size});  // NOLINT: iovec is not const-correct
  };
  std::size_t from = out_sent_;
  while (next_attached_ < attached_.size()) {
    const attached_body& a = attached_[next_attached_];
    gather(out_.data() + from, a.offset - from);
    from = a.offset;
    if (a.owner.file() != nullptr) break;
    gather(a.bytes.data(), a.bytes.size());
    ++next_attached_;
  }
  if (next_attached_ == attached_.size()) {
    gather(out_.data() + from, out_.size() - from);
    from = out_.size();
  }
  out_sent_ = from;
}

output_queue::progress output_queue::send_gather(transport& t) noexcept {
  while (!gather_.empty()) {
    boost::system::error_code ec;
    const std::size_t sent = t.write_some(gather_, ec);
    if (would_block(ec) || (!ec && sent == 0)) return progress::blocked;
    if (ec) return progress::failed;
    drop_sent(sent);
  }
  return progress::done;
}

void output_queue::drop_sent(std::size_t sent) noexcept {
  auto first_unsent = gather_.begin();
  while (first_unsent != gather_.end() && sent >= first_unsent->iov_len) {
    sent -= first_unsent->iov_len;
    ++first_unsent;
  }
  gather_.erase(gather_.begin(), first_unsent);
  if (!gather_.empty()) {
    gather_.front().iov_base = static_cast<char*>(gather_.front().iov_base) + sent;
    gather_.front().iov_len -= sent;
  }
}

output_queue::progress output_queue::send_file(transport& t) noexcept {
  const response& r = attached_[next_attached_].owner;
  const std::uint64_t length = r.content_length();
  while (file_sent_ < length) {
    boost::system::error_code ec;
    const std::size_t piece = static_cast<std::size_t>(std::min<std::uint64_t>(length - file_sent_, file_piece_bytes));
    const std::size_t n = t.write_file(r.file()->fd(), r.file_offset() + file_sent_, piece, ec);
    if (would_block(ec)) return progress::blocked;
    // 0 without an error: the file shrank under us. The Content-Length already
    // sent cannot be honoured any more, so the connection must end here.
    if (ec || n == 0) return progress::failed;
    file_sent_ += n;
  }
  file_sent_ = 0;
  ++next_attached_;
  return progress::done;
}

void output_queue::clear() noexcept {
  out_.clear();
  attached_.clear();
  attached_bytes_ = 0;
  out_sent_ = 0;
  next_attached_ = 0;
  file_sent_ = 0;
  gather_.clear();
  if (out_.capacity() > retained_output_bytes) std::string().swap(out_);
}

}  // namespace stet::detail
