#pragma once
/// @file
/// Streamed (chunked) response bodies.

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace stet {

/// Where a stream producer writes. Bytes are buffered and sent as one chunk
/// once the producer returns, so a producer writes many small pieces (rows)
/// and the socket sees about `target_bytes()` per write.
class stream_writer {
 public:
  /// Made by the connection for each piece: `buffer` is where the piece goes.
  stream_writer(std::string& buffer, std::size_t target_bytes) noexcept : buffer_(buffer), target_(target_bytes) {}
  /// Appends `bytes` to the piece.
  void write(std::string_view bytes) { buffer_.append(bytes); }
  /// The buffer, to append to in place (e.g. with fmt::format_to).
  std::string& buffer() noexcept { return buffer_; }
  /// Bytes in the piece so far.
  std::size_t buffered() const noexcept { return buffer_.size(); }
  /// About how many bytes one piece should hold.
  std::size_t target_bytes() const noexcept { return target_; }
  /// True until about one write's worth is buffered: the producer should return then.
  bool wants_more() const noexcept { return buffer_.size() < target_; }

 private:
  std::string& buffer_;
  std::size_t target_;
};

/// Produces a streamed body piece by piece. Called again only after the previous
/// piece was written to the socket (so a slow client slows the producer and
/// memory stays bounded), never after the client went away, and never for HEAD.
/// Returns true while more is to come. If it throws, the connection is closed
/// (the status line is already sent, so the truncated body is the signal).
using stream_producer = std::function<bool(stream_writer&)>;

}  // namespace stet
