#pragma once
// A connection's pending output: heads and small bodies copied into one
// buffer, large bodies left in their responses and gathered into the same
// write, file bodies sent by write_file (sendfile). All responses to a
// pipelined batch are queued before anything is written, so they share one
// write; a write that the stream does not take at once resumes from where it
// stopped.

#include <stet/response.hpp>

#include "net/transport/transport.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace stet::detail {

class output_queue {
 public:
  /// Bodies above this are not copied into text() but gathered from their response.
  static constexpr std::size_t attach_threshold = 16 * 1024;

  enum class progress : std::uint8_t {
    done,     ///< everything queued is written
    blocked,  ///< the stream is full: wait until it is writable, then call write() again
    failed,   ///< the stream failed, or a file body ended early: the connection must end
  };

  /// Heads and small bodies are appended here.
  std::string& text() noexcept { return out_; }
  /// `r`'s body (memory or file) goes out at the current end of text(), from
  /// `r` itself; `r` is kept until written.
  void attach(response&& r);
  /// `bytes` go out at the current end of text(); they must stay put until written.
  void attach_view(std::string_view bytes);

  bool empty() const noexcept { return out_.empty() && attached_.empty(); }
  /// Bytes waiting, a file body counting as attach_threshold (it is not in memory).
  std::size_t pending() const noexcept { return out_.size() + attached_bytes_; }

  /// Writes from where the last call stopped, never waiting.
  progress write(transport& t) noexcept;
  /// Forgets what was written; buffers that grew for one large batch are given back.
  void clear() noexcept;

 private:
  struct attached_body {
    std::size_t offset;      // where in out_ the body goes
    std::string_view bytes;  // a memory body (empty for a file)
    response owner;          // holds the bytes or the file; empty for a view
  };

  progress write_text_only(transport& t) noexcept;
  bool file_is_next() const noexcept;
  void gather_next();
  progress send_gather(transport& t) noexcept;
  progress send_file(transport& t) noexcept;
  void drop_sent(std::size_t sent) noexcept;

  std::string out_;
  std::vector<attached_body> attached_;
  std::size_t attached_bytes_ = 0;
  std::size_t out_sent_ = 0;       // bytes of out_ gathered (written, or in gather_)
  std::size_t next_attached_ = 0;  // first attached body not gathered yet
  std::uint64_t file_sent_ = 0;    // bytes of the current file body sent
  std::vector<iovec> gather_;      // the pieces of the write in progress not yet taken
};

}  // namespace stet::detail
