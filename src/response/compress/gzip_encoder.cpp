#include "response/compress/encoder.hpp"

#include <zlib.h>

#include <algorithm>

namespace stet::detail {
namespace {

// nginx's gzip_window and gzip_memlevel defaults (32 KiB window, memLevel 8);
// +16 asks zlib for the gzip header and trailer.
constexpr int window_bits = 15 + 16;
constexpr int mem_level = 8;

class gzip_encoder final : public encoder {
 public:
  gzip_encoder() = default;
  gzip_encoder(const gzip_encoder&) = delete;
  gzip_encoder& operator=(const gzip_encoder&) = delete;
  ~gzip_encoder() override {
    if (ready_) deflateEnd(&z_);
  }

  // The deflate state (about 256 KiB) is made once; later bodies only reset it,
  // and change its level only when the level changed.
  bool begin(const encoder_params& p, std::uint64_t) noexcept override {
    const int level = std::clamp(p.gzip_level, 1, 9);
    if (!ready_) {
      ready_ = deflateInit2(&z_, level, Z_DEFLATED, window_bits, mem_level, Z_DEFAULT_STRATEGY) == Z_OK;
      level_ = level;
      return ready_;
    }
    if (deflateReset(&z_) != Z_OK) return false;
    if (level != level_) {
      if (deflateParams(&z_, level, Z_DEFAULT_STRATEGY) != Z_OK) return false;
      level_ = level;
    }
    return true;
  }

  bool write(std::string_view input, flush_kind flush, std::string& out) override {
    z_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(input.data()));
    z_.avail_in = static_cast<uInt>(input.size());
    const int mode = flush == flush_kind::none ? Z_NO_FLUSH : flush == flush_kind::sync ? Z_SYNC_FLUSH : Z_FINISH;
    output_room room(out);
    std::size_t produced = 0;
    for (;;) {
      const std::size_t n = coded_room(deflateBound(&z_, z_.avail_in), produced);
      z_.next_out = reinterpret_cast<Bytef*>(room.open(n));
      z_.avail_out = static_cast<uInt>(n);
      const int rc = deflate(&z_, mode);
      room.close(n - z_.avail_out);
      produced += n - z_.avail_out;
      if (rc == Z_STREAM_END) return true;
      if (rc != Z_OK && rc != Z_BUF_ERROR) return false;
      // Done when the input is taken and zlib stopped with room to spare.
      if (mode != Z_FINISH && z_.avail_in == 0 && z_.avail_out != 0) return true;
    }
  }

  content_coding coding() const noexcept override { return content_coding::gzip; }

 private:
  z_stream z_{};
  bool ready_ = false;
  int level_ = 0;
};

}  // namespace

std::unique_ptr<encoder> make_gzip_encoder() { return std::make_unique<gzip_encoder>(); }

}  // namespace stet::detail
