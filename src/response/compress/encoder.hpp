#pragma once
// One compressor state (zlib deflate with the gzip wrapper, a brotli encoder,
// a zstd context), kept by a worker and reset between bodies instead of being
// created per response. A state is used by one body at a time.

#include <stet/compression.hpp>

#include "http/output_room.hpp"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace stet::detail {

/// What write() does after taking the input.
enum class flush_kind : std::uint8_t {
  none,    ///< keep buffering: output may lag the input
  sync,    ///< everything so far is decodable by the client (Z_SYNC_FLUSH, BROTLI_OPERATION_FLUSH, ZSTD_e_flush)
  finish,  ///< the body ends here; the state must be begun again before the next write
};

/// The parameters a body is compressed with, read from compression_options.
struct encoder_params {
  int gzip_level = 1;
  int brotli_quality = 6;
  int brotli_window = 19;
  int zstd_level = 3;
};

/// Extracts the encoder parameters from `s`.
constexpr encoder_params params_of(const compression_options& s) noexcept {
  return {s.gzip_level, s.brotli_quality, s.brotli_window, s.zstd_level};
}

class encoder {
 public:
  virtual ~encoder() = default;
  /// Starts a body. `size_hint` is its length when known, else 0 (a stream):
  /// zstd writes it into the frame, brotli sizes its window to it. False when
  /// the library refuses the parameters or is out of memory.
  virtual bool begin(const encoder_params& p, std::uint64_t size_hint) noexcept = 0;
  /// Compresses `input` and appends what the library produces to `out`
  /// (growing it as needed); then flushes as `flush` says. False on a library
  /// error: the body is then unusable and `out` holds a partial result.
  /// @throws std::bad_alloc when `out` cannot grow.
  virtual bool write(std::string_view input, flush_kind flush, std::string& out) = 0;
  virtual content_coding coding() const noexcept = 0;
};

/// A new state for `c` (gzip, br or zstd); null for identity or when out of memory.
std::unique_ptr<encoder> make_encoder(content_coding c);
std::unique_ptr<encoder> make_gzip_encoder();
std::unique_ptr<encoder> make_brotli_encoder();
std::unique_ptr<encoder> make_zstd_encoder();

/// Room to open for one more compressor call: a quarter of the worst case
/// `bound` (text, what is compressed, shrinks to a quarter or less), at least
/// 4 KiB, and as much again as was produced so far when the body compresses
/// less well. The string's new bytes are zero-filled when opened, so opening
/// the whole worst case (as room_for() would) costs a pass over memory four
/// times the size of the output; a body that needs more takes another call.
constexpr std::size_t coded_room(std::size_t bound, std::size_t produced_so_far) noexcept {
  return std::max({bound / 4, produced_so_far, min_room});
}

}  // namespace stet::detail
