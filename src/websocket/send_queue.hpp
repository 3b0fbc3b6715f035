#pragma once
// A WebSocket session's output: frames in the order they were queued, as one
// byte stream written by gather writes. Small frames (and every frame a
// send() builds from a caller's view) are copied into one buffer; a large
// published frame, built once for all its subscribers, is gathered from its
// shared buffer instead. A write that takes part of the queue resumes where
// it stopped, and frames may be queued meanwhile.

#include <sys/uio.h>

#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace stet::detail::ws {

class send_queue {
 public:
  /// Shared frames up to this size are copied (cheaper than gathering them
  /// and than counting references to one buffer from several threads).
  static constexpr std::size_t share_threshold = 4 * 1024;
  /// Buffer capacity kept once everything is written; more is given back, so
  /// an idle socket does not hold what one large message needed.
  static constexpr std::size_t retained_bytes = 2 * 1024;

  /// Queues `head` then `payload`, copied.
  /// @throws std::bad_alloc
  void append(std::string_view head, std::string_view payload);
  /// Queues a whole frame that others share (copied when small).
  /// @throws std::bad_alloc
  void append_shared(const std::shared_ptr<const std::string>& frame);

  /// Bytes queued and not yet written.
  std::size_t size() const noexcept { return text_.size() - text_sent_ + shared_bytes_; }
  bool empty() const noexcept { return size() == 0; }
  /// Bytes of buffer the queue holds (capacities; shared frames are counted
  /// by their owners, not here): at most retained_bytes once it is empty.
  std::size_t held_bytes() const noexcept { return text_.capacity() + shared_.capacity() * sizeof(shared_piece); }

  /// Fills `out` with the next pieces to write (at most out.size()); returns how many.
  std::size_t gather(std::span<iovec> out) const noexcept;
  /// Drops `n` written bytes from the front (n <= size()).
  void consume(std::size_t n) noexcept;
  /// Forgets everything queued.
  void clear() noexcept;

 private:
  struct shared_piece {
    std::size_t at;  // where in text_ the frame goes
    std::shared_ptr<const std::string> frame;
  };

  void compact() noexcept;
  void release_if_empty() noexcept;

  std::string text_;
  std::size_t text_sent_ = 0;
  std::vector<shared_piece> shared_;  // in stream order, from shared_first_
  std::size_t shared_first_ = 0;
  std::size_t piece_sent_ = 0;  // bytes of shared_[shared_first_] written
  std::size_t shared_bytes_ = 0;
};

}  // namespace stet::detail::ws
