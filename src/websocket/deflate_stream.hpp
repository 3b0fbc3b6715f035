#pragma once
// permessage-deflate's per-message compression (RFC 7692 7.2): raw DEFLATE,
// each message ended by a sync flush whose 00 00 ff ff tail is removed on the
// wire and put back before decompressing. One zlib stream per direction; a
// stream is a movable handle around zlib's state (which must not move), so a
// per-worker pool can lend and take back either kind.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

struct z_stream_s;

namespace stet::detail::ws {

/// Grows `s`'s capacity to exactly `capacity` (when larger), keeping its
/// bytes: a message buffer grows by what it needs, not by std::string's doubling.
/// @throws std::bad_alloc
void reserve_exactly(std::string& s, std::size_t capacity);

/// Compresses the messages a server sends.
class deflater {
 public:
  /// A compressor with a 2^window_bits window (9-15), zlib `level` (1-9) and
  /// `mem_level` (1-9). When `no_context_takeover`, every message is
  /// compressed on its own (server_no_context_takeover). valid() is false when
  /// zlib could not allocate its state.
  deflater(int window_bits, int level, int mem_level, bool no_context_takeover) noexcept;
  deflater(deflater&&) noexcept = default;
  deflater& operator=(deflater&&) noexcept = default;
  ~deflater();

  bool valid() const noexcept { return stream_ != nullptr; }
  /// Bytes this stream holds: zlib's state, window and hash tables.
  std::size_t held_bytes() const noexcept;

  /// Appends `message` compressed (without the 00 00 ff ff tail) to `out`.
  /// False when zlib fails (the stream is then unusable); `out` may have grown.
  /// @throws std::bad_alloc when `out` cannot grow.
  bool compress(std::string_view message, std::string& out);

  /// Forgets the previous messages (a pool does this before lending the stream again).
  void reset() noexcept;

 private:
  struct stream_deleter {
    void operator()(z_stream_s* s) const noexcept;
  };
  std::unique_ptr<z_stream_s, stream_deleter> stream_;
  bool no_context_takeover_ = false;
};

/// Decompresses the messages a client sends, piece by piece, within a limit.
class inflater {
 public:
  enum class status : std::uint8_t {
    ok,
    too_big,    ///< the message would decompress to more than the limit (close 1009)
    corrupt,    ///< not a valid DEFLATE stream (close 1007)
    no_memory,  ///< zlib could not allocate (close 1011)
  };

  /// A decompressor for a client window of 2^window_bits (8-15; 8 is read as 9,
  /// which zlib's compressor uses when asked for 8). When
  /// `no_context_takeover`, each message starts afresh (client_no_context_takeover).
  inflater(int window_bits, bool no_context_takeover) noexcept;
  inflater(inflater&&) noexcept = default;
  inflater& operator=(inflater&&) noexcept = default;
  ~inflater();

  bool valid() const noexcept { return stream_ != nullptr; }
  /// Bytes this stream holds: zlib's state and (once a message needed it) its window.
  std::size_t held_bytes() const noexcept;

  /// Decompresses the next piece of the current message, appending to `out`;
  /// `out` never grows beyond `limit` bytes.
  /// @throws std::bad_alloc when `out` cannot grow.
  status inflate(std::string_view piece, std::string& out, std::size_t limit);

  /// Ends the current message: decompresses the removed tail (00 00 ff ff),
  /// then prepares for the next message.
  /// @throws std::bad_alloc when `out` cannot grow.
  status finish(std::string& out, std::size_t limit);

  /// Abandons the current message and forgets the previous ones.
  void reset() noexcept;

 private:
  status run(std::string_view input, std::string& out, std::size_t limit);
  void restart_keeping_window() noexcept;

  struct stream_deleter {
    void operator()(z_stream_s* s) const noexcept;
  };
  std::unique_ptr<z_stream_s, stream_deleter> stream_;
  bool no_context_takeover_ = false;
  bool ended_ = false;  // the message's data had a final block: the rest of the message is ignored
};

}  // namespace stet::detail::ws
