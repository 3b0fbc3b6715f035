#include "response/compress/encoder.hpp"

#include <zstd.h>

#include <algorithm>

namespace stet::detail {
namespace {

// Levels above 19 are zstd's "ultra" levels, whose windows exceed the 8 MiB
// that RFC 9659 lets an HTTP client refuse; 19 and below stay within it.
constexpr int max_level = 19;

ZSTD_EndDirective directive_of(flush_kind f) noexcept {
  switch (f) {
    case flush_kind::none: return ZSTD_e_continue;
    case flush_kind::sync: return ZSTD_e_flush;
    case flush_kind::finish: break;
  }
  return ZSTD_e_end;
}

class zstd_encoder final : public encoder {
 public:
  zstd_encoder() : context_(ZSTD_createCCtx()) {}
  zstd_encoder(const zstd_encoder&) = delete;
  zstd_encoder& operator=(const zstd_encoder&) = delete;
  ~zstd_encoder() override { ZSTD_freeCCtx(context_); }

  // The context keeps its tables across bodies: a reset ends the session only.
  bool begin(const encoder_params& p, std::uint64_t size_hint) noexcept override {
    if (context_ == nullptr) return false;
    const int level = std::clamp(p.zstd_level, 1, max_level);
    const unsigned long long pledged = size_hint == 0 ? ZSTD_CONTENTSIZE_UNKNOWN : size_hint;
    return !ZSTD_isError(ZSTD_CCtx_reset(context_, ZSTD_reset_session_only)) &&
           !ZSTD_isError(ZSTD_CCtx_setParameter(context_, ZSTD_c_compressionLevel, level)) &&
           !ZSTD_isError(ZSTD_CCtx_setPledgedSrcSize(context_, pledged));
  }

  bool write(std::string_view input, flush_kind flush, std::string& out) override {
    ZSTD_inBuffer in{input.data(), input.size(), 0};
    const ZSTD_EndDirective directive = directive_of(flush);
    output_room room(out);
    std::size_t produced = 0;
    for (;;) {
      const std::size_t n =
          coded_room(flush == flush_kind::finish ? ZSTD_compressBound(in.size - in.pos) : 0, produced);
      ZSTD_outBuffer o{room.open(n), n, 0};
      const std::size_t left = ZSTD_compressStream2(context_, &o, &in, directive);
      room.close(o.pos);
      produced += o.pos;
      if (ZSTD_isError(left)) return false;
      // continue: done once the input is taken; flush and end: once nothing is left to write.
      if (directive == ZSTD_e_continue ? in.pos == in.size : left == 0) return true;
    }
  }

  content_coding coding() const noexcept override { return content_coding::zstd; }

 private:
  ZSTD_CCtx* context_;
};

}  // namespace

std::unique_ptr<encoder> make_zstd_encoder() { return std::make_unique<zstd_encoder>(); }

}  // namespace stet::detail
