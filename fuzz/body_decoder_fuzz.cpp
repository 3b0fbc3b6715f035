// Target: the request-body decoders (gzip, br, zstd) behind
// compression_options::decode_request_bodies. Byte 0 chooses:
//   bits 0-1  the coding: gzip, br, zstd, or "Content-Encoding value" mode
//   bit 2     round trip: the payload is compressed first (as two gzip
//             members or zstd frames when bit 6 is set), then decoded
//   bits 3-5  the decoded-size limit: 0, 1, 100, 4 KiB, 64 KiB, 1 MiB, 4 MiB, 8 MiB
//   bit 6     round trip: two members/frames; raw: nothing
//   bit 7     round trip: one junk byte after the coded body
// byte 1: round trip with zstd: the window log the frame declares (0:
// libzstd's choice, else 10 + byte % 17; see zstd() for those over 23),
// without a content size so the frame declares its window; raw: the split
// plan (pieces of byte + 1).
//
// Properties: never more than limit + 1 bytes out; decoded_body_too_large
// exactly when the body decodes to more than the limit; the same outcome
// however the coded bytes are cut (a body both corrupt and too large may be
// refused either way); decode_body() agrees with feed()+finish();
// a round trip gives back the payload; junk after the end is refused; and a
// zstd frame whose header declares a window over 8 MiB is refused before
// anything is decoded (so it cannot make the decoder allocate 128 MiB).

#include "support/require.hpp"

#include "request/body_decoder.hpp"

#include <stet/error.hpp>

#include <brotli/encode.h>
#include <zlib.h>
#define ZSTD_STATIC_LINKING_ONLY  // ZSTD_getFrameHeader
#include <zstd.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

namespace {

using stet::content_coding;
using stet::fuzz::require;

constexpr std::array<std::size_t, 8> limits = {0, 1, 100, 4096, 65536, 1u << 20, 4u << 20, 8u << 20};
constexpr int zstd_window_log_max = 23;
constexpr std::uint64_t zstd_window_max = std::uint64_t{1} << zstd_window_log_max;

// The compressors are made once and reset for each body: made per input,
// their windows and tables (up to 8 MiB for zstd) were most of the target's
// time, spent by the sanitizer's allocator mapping and unmapping them.
std::string gzip(std::string_view in) {
  static z_stream z = [] {
    z_stream made{};
    require(deflateInit2(&made, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) == Z_OK, "deflateInit2");
    return made;
  }();
  require(deflateReset(&z) == Z_OK, "deflateReset");
  std::string out(deflateBound(&z, in.size()) + 32, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = static_cast<uInt>(in.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  require(deflate(&z, Z_FINISH) == Z_STREAM_END, "deflate");
  out.resize(out.size() - z.avail_out);
  return out;
}

std::string brotli(std::string_view in) {
  std::size_t size = BrotliEncoderMaxCompressedSize(in.size());
  if (size == 0) size = in.size() + 1024;
  std::string out(size, '\0');
  require(BrotliEncoderCompress(4, 18, BROTLI_MODE_GENERIC, in.size(), reinterpret_cast<const std::uint8_t*>(in.data()),
                                &size, reinterpret_cast<std::uint8_t*>(out.data())) == BROTLI_TRUE,
          "BrotliEncoderCompress");
  out.resize(size);
  return out;
}

// Streamed, so the frame carries no content size and declares its window.
// Windows over 8 MiB are declared, not used: the compressor runs with an
// 8 MiB window and the frame's window descriptor then says `window_log`,
// which is the frame a larger window gives for a body this small (the level's
// tables are no larger than 8 MiB's; nothing in the body reaches that far
// back), without a compressor of up to 64 MiB per input.
std::string zstd(std::string_view in, int window_log) {
  static ZSTD_CCtx* const c = ZSTD_createCCtx();
  const int used = std::min(window_log, zstd_window_log_max);
  ZSTD_CCtx_reset(c, ZSTD_reset_session_and_parameters);
  ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, 1);
  ZSTD_CCtx_setParameter(c, ZSTD_c_contentSizeFlag, 0);
  if (window_log != 0) ZSTD_CCtx_setParameter(c, ZSTD_c_windowLog, used);
  std::string out(ZSTD_compressBound(in.size()) + 64, '\0');
  ZSTD_outBuffer o{out.data(), out.size(), 0};
  ZSTD_inBuffer i{in.data(), in.size(), 0};
  require(!ZSTD_isError(ZSTD_compressStream2(c, &o, &i, ZSTD_e_continue)), "ZSTD_compressStream2");
  ZSTD_inBuffer none{nullptr, 0, 0};
  std::size_t left = 0;
  do {
    left = ZSTD_compressStream2(c, &o, &none, ZSTD_e_end);
    require(!ZSTD_isError(left), "ZSTD_compressStream2 end");
  } while (left != 0);
  out.resize(o.pos);
  if (window_log > used) {
    // Magic (4 bytes), frame header descriptor, then the window descriptor:
    // exponent (log - 10) in its high five bits, mantissa 0.
    require(out.size() > 5 && static_cast<unsigned char>(out[5]) == (used - 10) << 3, "a window descriptor", out);
    out[5] = static_cast<char>((window_log - 10) << 3);
  }
  return out;
}

// The window the first zstd frame of `coded` declares (0: none, or a skippable frame).
std::uint64_t zstd_first_window(std::string_view coded) {
  ZSTD_frameHeader h{};
  if (ZSTD_getFrameHeader(&h, coded.data(), coded.size()) != 0) return 0;
  return h.frameType == ZSTD_frame ? h.windowSize : 0;
}

struct decoded {
  std::error_code fed;
  std::error_code finished;
  std::string out;
};

decoded decode_in_pieces(content_coding c, std::size_t limit, std::string_view coded,
                         const std::vector<std::size_t>& pieces) {
  decoded d;
  stet::detail::body_decoder decoder(c, limit);
  std::size_t at = 0;
  for (const std::size_t n : pieces) {
    // Each piece in a buffer of its own, freed after use: a view kept past it is caught.
    const std::string piece(coded.substr(at, n));
    at += n;
    d.fed = decoder.feed(piece, d.out);
    require(d.out.size() <= limit + 1, "never more than limit + 1 bytes out", coded);
    if (d.fed) return d;
  }
  d.finished = decoder.finish();
  return d;
}

void check_limit(const decoded& d, std::size_t limit, std::string_view coded) {
  if (d.fed == stet::error::decoded_body_too_large) {
    require(d.out.size() == limit + 1, "refused as too large once one byte past the limit", coded);
  } else {
    require(d.out.size() <= limit, "within the limit unless refused", coded);
  }
}

void content_encoding_value(std::string_view value) {
  // The reference: OWS-trimmed, one of four names, ASCII case-insensitively.
  std::size_t b = 0;
  std::size_t e = value.size();
  while (b < e && (value[b] == ' ' || value[b] == '\t')) ++b;
  while (e > b && (value[e - 1] == ' ' || value[e - 1] == '\t')) --e;
  std::string name(value.substr(b, e - b));
  for (char& ch : name) ch = (ch >= 'A' && ch <= 'Z') ? static_cast<char>(ch - 'A' + 'a') : ch;
  std::optional<content_coding> expected;
  if (name == "gzip" || name == "x-gzip") expected = content_coding::gzip;
  if (name == "br") expected = content_coding::br;
  if (name == "zstd") expected = content_coding::zstd;
  if (name == "identity") expected = content_coding::identity;
  require(stet::detail::request_body_coding(value) == expected, "request_body_coding() names exactly four codings",
          value);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  const unsigned setup = data[0];
  const std::string_view payload(reinterpret_cast<const char*>(data) + 2, size - 2);
  if ((setup & 3u) == 3u) {
    content_encoding_value(std::string_view(reinterpret_cast<const char*>(data) + 1, size - 1));
    return 0;
  }
  const auto c = static_cast<content_coding>((setup & 3u) + 1);  // gzip, br, zstd
  const std::size_t limit = limits[(setup >> 3) & 7u];
  const bool round_trip = (setup & 4u) != 0;

  std::string coded;
  std::vector<std::size_t> pieces;
  if (round_trip) {
    const bool two = (setup & 64u) != 0 && c != content_coding::br;  // brotli: one stream per body
    const std::string_view first = two ? payload.substr(0, payload.size() / 2) : payload;
    const std::string_view second = two ? payload.substr(payload.size() / 2) : std::string_view();
    const int window_log = data[1] == 0 ? 0 : 10 + data[1] % 17;
    const auto code = [&](std::string_view part) {
      switch (c) {
        case content_coding::gzip: return gzip(part);
        case content_coding::br: return brotli(part);
        default: return zstd(part, window_log);
      }
    };
    coded = code(first);
    if (two) coded += code(second);
    if ((setup & 128u) != 0) coded += '\x01';
    pieces.push_back(coded.size());
  } else {
    coded = payload;
    const std::size_t step = data[1] + 1u;
    for (std::size_t at = 0; at < coded.size(); at += step) pieces.push_back(std::min(step, coded.size() - at));
  }

  const decoded whole = decode_in_pieces(c, limit, coded, {coded.size()});
  check_limit(whole, limit, coded);
  const decoded cut = decode_in_pieces(c, limit, coded, pieces);
  check_limit(cut, limit, coded);
  // The verdict is what the server answers: feed()'s error, else finish()'s.
  // Where the corruption is noticed may depend on the cuts (zstd waits for
  // the rest of a block the whole input never brings, and finish() refuses
  // it; cut finer, the next step refuses it), but never the verdict. A body
  // both corrupt and over the limit may be refused either way (400 or 413):
  // brotli only hands out what it decoded when it runs out of input or room,
  // so in one piece it meets the corruption before the output crosses the
  // limit, cut finer it crosses the limit first.
  const auto verdict = [](const decoded& d) { return d.fed ? d.fed : d.finished; };
  const auto refused = [](std::error_code e) {
    return e == stet::error::bad_content_coding || e == stet::error::decoded_body_too_large;
  };
  const bool same_verdict = verdict(whole) == verdict(cut) || (refused(verdict(whole)) && refused(verdict(cut)));
  if (!same_verdict) {
    std::fprintf(stderr, "fuzz: whole: %s after %zu bytes out; cut: %s after %zu bytes out\n",
                 verdict(whole).message().c_str(), whole.out.size(), verdict(cut).message().c_str(), cut.out.size());
  }
  require(same_verdict, "the same verdict however the body is cut", coded);
  if (!verdict(whole)) require(whole.out == cut.out, "the same bytes however the body is cut", coded);

  std::string once;
  const std::error_code ec = stet::detail::decode_body(stet::coding_name(c), coded, limit, once);
  require(ec == (whole.fed ? whole.fed : whole.finished), "decode_body() is feed() then finish()", coded);
  if (!ec) require(once == whole.out, "decode_body() gives feed()'s bytes", coded);

  if (c == content_coding::zstd && zstd_first_window(coded) > zstd_window_max) {
    require(whole.fed == stet::error::bad_content_coding && whole.out.empty(),
            "a zstd frame declaring a window over 8 MiB is refused before decoding", coded);
  }
  if (round_trip) {
    const bool junk = (setup & 128u) != 0;
    const bool refused_window = c == content_coding::zstd && zstd_first_window(coded) > zstd_window_max;
    if (payload.size() > limit && !refused_window) {
      require(whole.fed == stet::error::decoded_body_too_large, "a body over the limit is refused (413)", coded);
      require(std::string_view(whole.out) == payload.substr(0, whole.out.size()),
              "what came out before the refusal is the body's start", coded);
    } else if (!junk && !refused_window) {
      require(!whole.fed && !whole.finished, "a round trip decodes", coded);
      require(whole.out == payload, "a round trip gives the body back", coded);
    }
    if (junk) require(whole.fed || whole.finished, "junk after the coded body is refused", coded);
  }
  return 0;
}
