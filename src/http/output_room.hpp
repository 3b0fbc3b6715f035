#pragma once
// Growing a string that a C library (zlib, brotli, zstd) writes into through
// a pointer and a length: shared by the response encoders and the request-body
// decoder, which code in opposite directions but fill their output alike.

#include <algorithm>
#include <cstddef>
#include <string>

namespace stet::detail {

/// The tail of a string that a C library writes into through (pointer,
/// available): open() makes room, close() keeps what was written.
class output_room {
 public:
  explicit output_room(std::string& out) noexcept : out_(out) {}
  /// Makes `n` more bytes writable at the end of the string and returns them.
  /// @throws std::bad_alloc when the string cannot grow.
  char* open(std::size_t n) {
    kept_ = out_.size();
    out_.resize(kept_ + n);
    return out_.data() + kept_;
  }
  /// Keeps `written` of the bytes open() made room for.
  void close(std::size_t written) noexcept { out_.resize(kept_ + written); }

 private:
  std::string& out_;
  std::size_t kept_ = 0;
};

/// The least room a library call is given: a call per few KiB at most.
inline constexpr std::size_t min_room = 4096;

/// Room to open for one more library call: what the input may need (`bound`),
/// at least a few KiB, more as the string grows, so a long body takes few calls.
constexpr std::size_t room_for(std::size_t bound, std::size_t produced_so_far) noexcept {
  return std::max({bound, produced_so_far / 2, min_room});
}

}  // namespace stet::detail
