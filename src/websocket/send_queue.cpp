#include "websocket/send_queue.hpp"

#include <algorithm>

namespace stet::detail::ws {

namespace {

// A written prefix of the buffer is moved out only when it is large and most
// of the buffer, so a queue that never empties does not grow without bound
// and a busy one does not move bytes on every write.
constexpr std::size_t compact_bytes = 64 * 1024;

iovec piece(const char* data, std::size_t size) noexcept {
  return {const_cast<char*>(data), size};  // NOLINT: writev does not write through it
}

}  // namespace

void send_queue::append(std::string_view head, std::string_view payload) {
  compact();
  text_.reserve(text_.size() + head.size() + payload.size());
  text_.append(head);
  text_.append(payload);
}

void send_queue::append_shared(const std::shared_ptr<const std::string>& frame) {
  if (frame->size() <= share_threshold) {
    append({}, *frame);
    return;
  }
  compact();
  shared_.push_back({text_.size(), frame});
  shared_bytes_ += frame->size();
}

std::size_t send_queue::gather(std::span<iovec> out) const noexcept {
  std::size_t n = 0;
  std::size_t text_at = text_sent_;
  std::size_t skip = piece_sent_;
  for (std::size_t i = shared_first_; i < shared_.size() && n < out.size(); ++i) {
    const shared_piece& p = shared_[i];
    if (p.at > text_at) {
      out[n++] = piece(text_.data() + text_at, p.at - text_at);
      text_at = p.at;
      if (n == out.size()) return n;
    }
    out[n++] = piece(p.frame->data() + skip, p.frame->size() - skip);
    skip = 0;
  }
  if (n < out.size() && text_at < text_.size()) out[n++] = piece(text_.data() + text_at, text_.size() - text_at);
  return n;
}

void send_queue::consume(std::size_t n) noexcept {
  while (n > 0) {
    const std::size_t text_end = shared_first_ < shared_.size() ? shared_[shared_first_].at : text_.size();
    const std::size_t from_text = std::min(n, text_end - text_sent_);
    text_sent_ += from_text;
    n -= from_text;
    if (n == 0 || shared_first_ == shared_.size()) break;
    const std::string& frame = *shared_[shared_first_].frame;
    const std::size_t from_piece = std::min(n, frame.size() - piece_sent_);
    piece_sent_ += from_piece;
    shared_bytes_ -= from_piece;
    n -= from_piece;
    if (piece_sent_ == frame.size()) {
      shared_[shared_first_++].frame.reset();
      piece_sent_ = 0;
    }
  }
  release_if_empty();
}

void send_queue::clear() noexcept {
  text_sent_ = text_.size();
  for (std::size_t i = shared_first_; i < shared_.size(); ++i) shared_[i].frame.reset();
  shared_first_ = shared_.size();
  piece_sent_ = 0;
  shared_bytes_ = 0;
  release_if_empty();
}

void send_queue::compact() noexcept {
  if (text_sent_ < compact_bytes || text_sent_ * 2 < text_.size()) return;
  text_.erase(0, text_sent_);
  for (std::size_t i = shared_first_; i < shared_.size(); ++i) shared_[i].at -= text_sent_;
  text_sent_ = 0;
}

void send_queue::release_if_empty() noexcept {
  if (text_sent_ != text_.size() || shared_first_ != shared_.size()) return;
  text_sent_ = 0;
  shared_first_ = 0;
  text_.clear();
  shared_.clear();
  if (held_bytes() > retained_bytes) {
    std::string().swap(text_);
    std::vector<shared_piece>().swap(shared_);
  }
}

}  // namespace stet::detail::ws
