#pragma once
// Decoding a request body sent with Content-Encoding gzip, br or zstd, as it
// arrives, never past a decoded-size limit: a decompression bomb is refused
// (413) once it has produced `limit` bytes, having cost that much memory and
// the CPU to produce it, however large it claims to be.

#include <stet/compression.hpp>
#include <stet/error.hpp>
#include <stet/request.hpp>

#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <system_error>

namespace stet::detail {

/// The coding a request's Content-Encoding value names: "gzip" (or "x-gzip"),
/// "br", "zstd" or "identity", case-insensitively; nullopt for anything else,
/// including several codings (stet decodes one layer; 415).
std::optional<content_coding> request_body_coding(std::string_view content_encoding) noexcept;

/// A streaming decoder for one coded body. Memory: the output, bounded by the
/// limit, plus the library's window (gzip 32 KiB; brotli up to the 16 MiB a
/// stream may declare; zstd frames needing over 8 MiB are refused).
class body_decoder {
 public:
  /// For `c` (gzip, br or zstd), producing at most `limit` bytes.
  /// @throws std::bad_alloc when the library state cannot be had.
  body_decoder(content_coding c, std::size_t limit);
  ~body_decoder();
  body_decoder(const body_decoder&) = delete;
  body_decoder& operator=(const body_decoder&) = delete;

  /// Decodes the next piece of the coded body, appending to `out`.
  /// error::decoded_body_too_large once more than `limit` bytes came out
  /// (`out` then holds at most limit + 1 of them); error::bad_content_coding
  /// for corrupt input or bytes after the end.
  /// @throws std::bad_alloc when `out` cannot grow.
  std::error_code feed(std::string_view input, std::string& out);
  /// The coded body ended: error::bad_content_coding when it was truncated.
  std::error_code finish() const noexcept;

  class state;

 private:
  std::unique_ptr<state> state_;
  std::size_t limit_;
  std::size_t produced_ = 0;
};

/// Decodes a whole coded `body` (Content-Encoding value `content_encoding`) into
/// `out` (appended): error::unsupported_content_coding (415) for a coding stet
/// does not decode, else as body_decoder. Identity copies the body, under the limit.
/// @throws std::bad_alloc when out of memory.
std::error_code decode_body(std::string_view content_encoding, std::string_view body, std::size_t limit,
                            std::string& out);

/// For a buffered request body with a Content-Encoding: decodes `body` in
/// place (at most s.max_decoded_body_bytes) and drops the Content-Encoding
/// field from `req`'s field list (`fields`, the array it views), so the
/// handler sees the body as sent before coding (Content-Length still says how
/// many coded bytes came). Nothing to do (no body, no Content-Encoding, or
/// `identity`): nullopt after a scan of the fields. Otherwise nullopt on
/// success, or the error to answer with: decoded_body_too_large (413),
/// unsupported_content_coding (415), bad_content_coding (400). Call only when
/// s.decode_request_bodies, once the request's body is set.
/// @throws std::bad_alloc when out of memory.
std::optional<stet::error> decode_request_body(const compression_options& s, request& req, std::string& body,
                                               std::span<header_field> fields);

}  // namespace stet::detail
