#include "request/body_decoder.hpp"

#include <stet/compression.hpp>
#include <stet/error.hpp>

#include "http/output_room.hpp"
#include "http/token.hpp"
#include "request/request_access.hpp"

#include <brotli/decode.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <new>

namespace stet::detail {

// One library's decoder. step() decodes from `in` into `room` bytes at `to`,
// advancing `in`, and says how many bytes it wrote and where the stream stands.
class body_decoder::state {
 public:
  enum class progress : std::uint8_t { more, ended, corrupt };
  struct result {
    progress where;
    std::size_t written;
  };
  virtual ~state() = default;
  virtual result step(std::string_view& in, char* to, std::size_t room) noexcept = 0;
  bool ended = false;  // at the end of a complete member or frame
};

namespace {

using progress = body_decoder::state::progress;
using result = body_decoder::state::result;

// Several gzip members in a row are one body (RFC 1952 2.2), as curl and
// browsers read them.
class gzip_state final : public body_decoder::state {
 public:
  gzip_state() {
    if (inflateInit2(&z_, 15 + 16) != Z_OK) throw std::bad_alloc();
  }
  ~gzip_state() override { inflateEnd(&z_); }
  gzip_state(const gzip_state&) = delete;
  gzip_state& operator=(const gzip_state&) = delete;

  result step(std::string_view& in, char* to, std::size_t room) noexcept override {
    if (ended && inflateReset(&z_) != Z_OK) return {progress::corrupt, 0};
    z_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
    z_.avail_in = static_cast<uInt>(std::min<std::size_t>(in.size(), 1u << 30));
    z_.next_out = reinterpret_cast<Bytef*>(to);
    z_.avail_out = static_cast<uInt>(room);
    const int rc = inflate(&z_, Z_NO_FLUSH);
    in.remove_prefix(static_cast<std::size_t>(reinterpret_cast<const char*>(z_.next_in) - in.data()));
    const std::size_t written = room - z_.avail_out;
    ended = rc == Z_STREAM_END;
    if (rc == Z_STREAM_END || rc == Z_OK || rc == Z_BUF_ERROR)
      return {ended ? progress::ended : progress::more, written};
    return {progress::corrupt, written};
  }

 private:
  z_stream z_{};
};

class brotli_state final : public body_decoder::state {
 public:
  brotli_state() : s_(BrotliDecoderCreateInstance(nullptr, nullptr, nullptr)) {
    if (s_ == nullptr) throw std::bad_alloc();
  }
  ~brotli_state() override { BrotliDecoderDestroyInstance(s_); }
  brotli_state(const brotli_state&) = delete;
  brotli_state& operator=(const brotli_state&) = delete;

  result step(std::string_view& in, char* to, std::size_t room) noexcept override {
    if (ended) return {in.empty() ? progress::ended : progress::corrupt, 0};  // one stream per body
    std::size_t available_in = in.size();
    const auto* next_in = reinterpret_cast<const std::uint8_t*>(in.data());
    std::size_t available_out = room;
    auto* next_out = reinterpret_cast<std::uint8_t*>(to);
    const BrotliDecoderResult rc =
        BrotliDecoderDecompressStream(s_, &available_in, &next_in, &available_out, &next_out, nullptr);
    in.remove_prefix(in.size() - available_in);
    const std::size_t written = room - available_out;
    if (rc == BROTLI_DECODER_RESULT_ERROR) return {progress::corrupt, written};
    ended = rc == BROTLI_DECODER_RESULT_SUCCESS;
    return {ended ? progress::ended : progress::more, written};
  }

 private:
  BrotliDecoderState* s_;
};

// Frames needing a window over 8 MiB are refused (RFC 9659's limit for HTTP),
// so a hostile frame cannot make the decoder allocate 128 MiB or more.
constexpr int zstd_window_log_max = 23;

class zstd_state final : public body_decoder::state {
 public:
  zstd_state() : d_(ZSTD_createDCtx()) {
    if (d_ == nullptr) throw std::bad_alloc();
    ZSTD_DCtx_setParameter(d_, ZSTD_d_windowLogMax, zstd_window_log_max);
  }
  ~zstd_state() override { ZSTD_freeDCtx(d_); }
  zstd_state(const zstd_state&) = delete;
  zstd_state& operator=(const zstd_state&) = delete;

  result step(std::string_view& in, char* to, std::size_t room) noexcept override {
    // A frame's header goes a byte at a time, so libzstd reads it only from its
    // own copy. Two of its shortcuts look at the input it was handed instead,
    // and either gives a verdict that depends on the cuts: a frame whole in one
    // input is decoded in one pass, which takes frames its streaming decoder
    // refuses (an empty frame with an RLE block), and a bad header makes it try
    // the legacy formats on that input (which may begin with a legacy magic).
    // The bytes are looped here, not in feed(), which opens output room per step.
    ZSTD_outBuffer o{to, room, 0};
    std::size_t rc = 0;
    bool byte_at_a_time = false;
    do {
      byte_at_a_time = declared_ == ZSTD_CONTENTSIZE_ERROR && in.size() > 1;
      ZSTD_inBuffer i{in.data(), byte_at_a_time ? 1 : in.size(), 0};
      rc = ZSTD_decompressStream(d_, &o, &i);
      note_header(in.substr(0, i.pos));
      in.remove_prefix(i.pos);
      if (ZSTD_isError(rc) || !rfc8878_frame()) return {progress::corrupt, o.pos};
    } while (byte_at_a_time && rc != 0 && o.pos < room);
    frame_bytes_ += o.pos;
    // 0: a frame just ended; another may follow (concatenated frames are one body).
    ended = rc == 0;
    if (!ended) return {progress::more, o.pos};
    // zstd checks a frame's declared content size only when the whole frame is
    // in one input; fed in pieces, a frame that declares 3 bytes and holds none
    // ends as an empty one. The size is checked here, however the frame came.
    const bool short_or_long =
        declared_ != ZSTD_CONTENTSIZE_UNKNOWN && declared_ != ZSTD_CONTENTSIZE_ERROR && declared_ != frame_bytes_;
    header_size_ = 0;
    frame_bytes_ = 0;
    declared_ = ZSTD_CONTENTSIZE_ERROR;
    return {short_or_long ? progress::corrupt : progress::ended, o.pos};
  }

 private:
  // Keeps the frame's first bytes until its header (at most 18 bytes:
  // ZSTD_FRAMEHEADERSIZE_MAX, of zstd's static-only API) says the content
  // size, or that it has none.
  void note_header(std::string_view taken) noexcept {
    if (declared_ != ZSTD_CONTENTSIZE_ERROR || header_size_ == header_.size()) return;
    const std::size_t n = std::min(taken.size(), header_.size() - header_size_);
    std::copy_n(taken.data(), n, header_.data() + header_size_);
    header_size_ += n;
    declared_ = ZSTD_getFrameContentSize(header_.data(), header_size_);
  }

  // RFC 8878's zstd is the format of libzstd 0.8 on, and skippable frames;
  // libzstd also decodes older (legacy) frames, but only when one comes whole,
  // so a legacy frame would be taken or refused depending on the cuts.
  bool rfc8878_frame() const noexcept {
    if (header_size_ < 4) return true;  // not known yet
    std::uint32_t magic = 0;
    for (int b = 3; b >= 0; --b) magic = magic << 8 | static_cast<unsigned char>(header_[b]);
    return magic == ZSTD_MAGICNUMBER || (magic & ZSTD_MAGIC_SKIPPABLE_MASK) == ZSTD_MAGIC_SKIPPABLE_START;
  }

  ZSTD_DCtx* d_;
  std::array<char, 18> header_{};
  std::size_t header_size_ = 0;
  unsigned long long declared_ = ZSTD_CONTENTSIZE_ERROR;  // not known yet
  std::uint64_t frame_bytes_ = 0;                         // produced by this frame so far
};

std::unique_ptr<body_decoder::state> make_state(content_coding c) {
  switch (c) {
    case content_coding::gzip: return std::make_unique<gzip_state>();
    case content_coding::br: return std::make_unique<brotli_state>();
    case content_coding::zstd: return std::make_unique<zstd_state>();
    case content_coding::identity: break;
  }
  return nullptr;
}

}  // namespace

std::optional<content_coding> request_body_coding(std::string_view content_encoding) noexcept {
  const std::string_view c = trim_ows(content_encoding);
  if (iequals(c, "gzip") || iequals(c, "x-gzip")) return content_coding::gzip;
  if (iequals(c, "br")) return content_coding::br;
  if (iequals(c, "zstd")) return content_coding::zstd;
  if (iequals(c, "identity")) return content_coding::identity;
  return std::nullopt;
}

body_decoder::body_decoder(content_coding c, std::size_t limit) : state_(make_state(c)), limit_(limit) {}

body_decoder::~body_decoder() = default;

std::error_code body_decoder::feed(std::string_view input, std::string& out) {
  if (state_ == nullptr) return error::unsupported_content_coding;
  output_room room(out);
  while (!input.empty() || !state_->ended) {
    // Never more room than one byte past the limit: a bomb stops right there.
    const std::size_t left = limit_ - std::min(limit_, produced_) + 1;
    const std::size_t n = std::min(left, room_for(input.size() * 4, produced_));
    const std::size_t before = input.size();
    const result r = state_->step(input, room.open(n), n);
    room.close(r.written);
    produced_ += r.written;
    if (produced_ > limit_) return error::decoded_body_too_large;
    if (r.where == progress::corrupt) return error::bad_content_coding;
    // At an end with input left: the next step decides (another gzip member or
    // zstd frame, or bytes that do not belong).
    if (r.where == progress::ended) {
      if (input.empty()) break;
      continue;
    }
    // No input taken and room left over: the decoder wants the next piece.
    if (r.written < n && input.size() == before) break;
  }
  return {};
}

std::error_code body_decoder::finish() const noexcept {
  return state_ != nullptr && state_->ended ? std::error_code() : make_error_code(error::bad_content_coding);
}

std::error_code decode_body(std::string_view content_encoding, std::string_view body, std::size_t limit,
                            std::string& out) {
  const std::optional<content_coding> c = request_body_coding(content_encoding);
  if (!c) return error::unsupported_content_coding;
  if (*c == content_coding::identity) {
    if (body.size() > limit) return error::decoded_body_too_large;
    out.append(body);
    return {};
  }
  body_decoder decoder(*c, limit);
  if (std::error_code ec = decoder.feed(body, out)) return ec;
  return decoder.finish();
}

namespace {

constexpr std::size_t scratch_kept_bytes = 256 * 1024;

}  // namespace

std::optional<stet::error> decode_request_body(const compression_options& s, request& req, std::string& body,
                                               std::span<header_field> fields) {
  if (body.empty()) return std::nullopt;
  const auto coded = std::find_if(fields.begin(), fields.end(),
                                  [](const header_field& f) { return iequals(f.name, "content-encoding"); });
  if (coded == fields.end() || iequals(coded->value, "identity")) return std::nullopt;
  // Decoded into a per-thread scratch string that then trades buffers with the
  // body, so a steady stream of coded requests allocates nothing; a scratch
  // buffer grown large by one of them is let go.
  thread_local std::string decoded;
  decoded.clear();
  const std::error_code ec = decode_body(coded->value, body, s.max_decoded_body_bytes, decoded);
  if (!ec) {
    body.swap(decoded);
    request_access::set_body(req, body);
  }
  if (decoded.capacity() > scratch_kept_bytes) std::string().swap(decoded);
  if (ec) return ec.category() == error_category() ? static_cast<stet::error>(ec.value()) : error::bad_content_coding;
  std::rotate(coded, coded + 1, fields.end());
  request_access::set_fields(req, fields.first(fields.size() - 1));
  return std::nullopt;
}

}  // namespace stet::detail
