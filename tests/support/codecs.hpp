#pragma once
// Decoding with the compression libraries themselves, independent of stet's
// own decoder, so a round trip checks stet's output against the reference.

#include <stet/compression.hpp>

#include <brotli/decode.h>
#include <zlib.h>
#include <zstd.h>

#include <optional>
#include <random>
#include <string>
#include <string_view>

namespace stet::test {

/// A reference streaming decoder: feed() returns everything decodable so far.
class reference_decoder {
 public:
  explicit reference_decoder(content_coding c) : coding_(c) {
    if (c == content_coding::gzip) inflateInit2(&z_, 15 + 16);
    if (c == content_coding::br) br_ = BrotliDecoderCreateInstance(nullptr, nullptr, nullptr);
    if (c == content_coding::zstd) zstd_ = ZSTD_createDStream();
  }
  ~reference_decoder() {
    if (coding_ == content_coding::gzip) inflateEnd(&z_);
    if (br_ != nullptr) BrotliDecoderDestroyInstance(br_);
    if (zstd_ != nullptr) ZSTD_freeDStream(zstd_);
  }
  reference_decoder(const reference_decoder&) = delete;
  reference_decoder& operator=(const reference_decoder&) = delete;

  /// Appends the decoded bytes of `in` to `out`; false on a decoding error.
  bool feed(std::string_view in, std::string& out) {
    char buffer[16384];
    switch (coding_) {
      case content_coding::gzip: return feed_gzip(in, out, buffer, sizeof buffer);
      case content_coding::br: return feed_brotli(in, out, buffer, sizeof buffer);
      case content_coding::zstd: return feed_zstd(in, out, buffer, sizeof buffer);
      case content_coding::identity: out.append(in); return true;
    }
    return false;
  }
  /// Whether the coded stream has ended properly.
  bool ended() const noexcept { return ended_; }

 private:
  bool feed_gzip(std::string_view in, std::string& out, char* buffer, std::size_t size) {
    z_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
    z_.avail_in = static_cast<uInt>(in.size());
    do {
      z_.next_out = reinterpret_cast<Bytef*>(buffer);
      z_.avail_out = static_cast<uInt>(size);
      const int rc = inflate(&z_, Z_SYNC_FLUSH);
      if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR) return false;
      out.append(buffer, size - z_.avail_out);
      if (rc == Z_STREAM_END) ended_ = true;
    } while (z_.avail_out == 0);
    return true;
  }
  bool feed_brotli(std::string_view in, std::string& out, char* buffer, std::size_t size) {
    std::size_t available_in = in.size();
    const auto* next_in = reinterpret_cast<const std::uint8_t*>(in.data());
    for (;;) {
      std::size_t available_out = size;
      auto* next_out = reinterpret_cast<std::uint8_t*>(buffer);
      const BrotliDecoderResult rc =
          BrotliDecoderDecompressStream(br_, &available_in, &next_in, &available_out, &next_out, nullptr);
      out.append(buffer, size - available_out);
      if (rc == BROTLI_DECODER_RESULT_ERROR) return false;
      if (rc == BROTLI_DECODER_RESULT_SUCCESS) ended_ = true;
      if (rc != BROTLI_DECODER_RESULT_NEEDS_MORE_OUTPUT) return true;
    }
  }
  bool feed_zstd(std::string_view in, std::string& out, char* buffer, std::size_t size) {
    ZSTD_inBuffer i{in.data(), in.size(), 0};
    for (;;) {
      ZSTD_outBuffer o{buffer, size, 0};
      const std::size_t rc = ZSTD_decompressStream(zstd_, &o, &i);
      if (ZSTD_isError(rc)) return false;
      out.append(buffer, o.pos);
      if (rc == 0) ended_ = true;
      if (i.pos == i.size && o.pos < o.size) return true;
    }
  }

  content_coding coding_;
  z_stream z_{};
  BrotliDecoderState* br_ = nullptr;
  ZSTD_DStream* zstd_ = nullptr;
  bool ended_ = false;
};

/// The whole of `coded` decoded with the reference decoder; nullopt on error
/// or when the stream did not end.
inline std::optional<std::string> reference_decode(content_coding c, std::string_view coded) {
  reference_decoder d(c);
  std::string out;
  if (!d.feed(coded, out) || !d.ended()) return std::nullopt;
  return out;
}

/// `n` bytes of text that compresses like JSON does (repeated keys, varying numbers).
inline std::string compressible_text(std::size_t n) {
  std::string s;
  s.reserve(n + 64);
  for (std::size_t i = 0; s.size() < n; ++i) {
    s += "{\"id\":" + std::to_string(i) + ",\"name\":\"user-" + std::to_string(i * 7919 % 1000) + "\"},";
  }
  s.resize(n);
  return s;
}

/// `n` random bytes (incompressible), the same for the same seed.
inline std::string random_bytes(std::size_t n, unsigned seed = 42) {
  std::mt19937 gen(seed);
  std::string s(n, '\0');
  for (char& c : s) c = static_cast<char>(gen() & 0xff);
  return s;
}

}  // namespace stet::test
