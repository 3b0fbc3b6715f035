#pragma once
/// @file
/// Response compression (gzip, br, zstd) and request body decoding: the
/// settings a server holds in server_options::compression. See docs/compression.md.

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace stet {

/// A content coding stet can produce or decode (RFC 9110 section 8.4.1).
enum class content_coding : std::uint8_t {
  identity,  ///< no coding
  gzip,      ///< RFC 1952 (zlib); "x-gzip" is read as gzip
  br,        ///< RFC 7932 (libbrotli)
  zstd,      ///< RFC 8878 (libzstd)
};

/// Codings other than identity, in the enum's order (for tables indexed by coding).
inline constexpr std::size_t compressed_coding_count = 3;

/// The coding's token as sent in Content-Encoding ("identity", "gzip", "br",
/// "zstd"); the view is static.
constexpr std::string_view coding_name(content_coding c) noexcept {
  constexpr std::array<std::string_view, 4> names = {"identity", "gzip", "br", "zstd"};
  return names[static_cast<std::size_t>(c)];
}

/// How and when responses are compressed, and whether request bodies with a
/// Content-Encoding are decoded. A plain aggregate, copied into the server at
/// construction; the defaults are nginx's where nginx has one.
struct compression_options {
  /// Master switch for response compression. Off by default: compressing a
  /// response that reflects a secret next to attacker-chosen input leaks the
  /// secret (BREACH), so an application opts in, and opts such responses out
  /// again with response::no_compression() or route_options::compress.
  bool enabled = false;
  /// The codings offered, most preferred first: among codings the client weighs
  /// equally, the earlier one wins. A coding not listed is never produced.
  std::vector<content_coding> codings = {content_coding::br, content_coding::zstd, content_coding::gzip};
  /// zlib level 1..9 (nginx gzip_comp_level defaults to 1).
  int gzip_level = 1;
  /// brotli quality 0..11 (ngx_brotli's brotli_comp_level defaults to 6).
  int brotli_quality = 6;
  /// brotli window, log2 of bytes, 10..24 (ngx_brotli's brotli_window is 512k: 19);
  /// bodies of known size get the smallest window that holds them, as in ngx_brotli.
  int brotli_window = 19;
  /// zstd level 1..19 (libzstd's default, 3).
  int zstd_level = 3;
  /// Bodies smaller than this are sent as they are; streamed bodies are always eligible.
  std::size_t min_bytes = 1024;
  /// Media types that are compressed: "type/subtype", "type/*" or
  /// "type/*+suffix" (structured syntax suffix, e.g. "application/*+json"),
  /// matched case-insensitively against the Content-Type without parameters.
  std::vector<std::string> media_types = {"text/*",
                                          "application/json",
                                          "application/*+json",
                                          "application/x-ndjson",
                                          "application/javascript",
                                          "application/x-javascript",
                                          "application/ecmascript",
                                          "application/xml",
                                          "application/*+xml",
                                          "image/svg+xml",
                                          "application/wasm",
                                          "font/ttf",
                                          "font/otf",
                                          "image/x-icon",
                                          "image/vnd.microsoft.icon",
                                          "application/vnd.ms-fontobject"};

  /// Decode request bodies sent with Content-Encoding gzip, br or zstd before
  /// handlers see them (off: such bodies reach the handler as they came).
  bool decode_request_bodies = false;
  /// The most bytes a coded request body may decode to; beyond it the request
  /// is refused with 413 (error::decoded_body_too_large) as soon as the limit
  /// is crossed, so a decompression bomb costs this much memory and the CPU to
  /// produce it, no more.
  std::size_t max_decoded_body_bytes = 8 * 1024 * 1024;
};

/// The earlier name (#26: option structs are named *_options): deprecated,
/// removed in the next release.
using compression_settings [[deprecated("renamed compression_options")]] = compression_options;

}  // namespace stet
