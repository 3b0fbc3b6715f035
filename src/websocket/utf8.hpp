#pragma once
// UTF-8 validation (RFC 3629: no overlong forms, no surrogates, nothing above
// U+10FFFF) that can stop anywhere, mid-character included, and go on with the
// next piece: a text message arrives in frames, and a frame in reads.

#include <cstdint>
#include <string_view>

namespace stet::detail::ws {

class utf8_validator {
 public:
  /// Validates the next bytes; false once the text so far cannot be UTF-8
  /// (and from then on). A character cut at the end of `bytes` is not an error.
  bool feed(std::string_view bytes) noexcept;

  /// Whether everything fed so far is valid and ends on a character boundary.
  bool complete() const noexcept { return state_ == 0; }

  /// Whether an invalid byte has been seen.
  bool failed() const noexcept { return state_ == reject; }

  /// Starts a new text.
  void reset() noexcept { state_ = 0; }

  static constexpr std::uint8_t reject = 1;

 private:
  std::uint8_t state_ = 0;
};

/// Whether `text` is complete, valid UTF-8.
bool is_valid_utf8(std::string_view text) noexcept;

}  // namespace stet::detail::ws
