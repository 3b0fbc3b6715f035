#include "response/compress/encoder.hpp"

#include <brotli/encode.h>

#include <algorithm>
#include <cstdlib>
#include <vector>

namespace stet::detail {
namespace {

// libbrotli 1.0.9 cannot reset an encoder: a finished instance stays finished.
// What a fresh instance costs is mostly its allocations - a few large blocks
// (ring buffer, hash tables) that malloc serves with fresh mmap()ed pages and
// page faults every time. So each pooled encoder keeps the blocks its last
// instance freed and hands them to the next one (which clears what it needs
// itself): an instance per body, but no fresh memory per body. Measured in
// bench/compress_bench.cpp (BM_Brotli*).
class block_cache {
 public:
  block_cache() = default;
  block_cache(const block_cache&) = delete;
  block_cache& operator=(const block_cache&) = delete;
  ~block_cache() {
    for (const block& b : blocks_) std::free(b.address);
  }

  // The smallest idle block that fits and wastes at most half of itself.
  void* take(std::size_t n) noexcept {
    block* best = nullptr;
    for (block& b : blocks_) {
      if (!b.used && b.size >= n && b.size / 2 <= n && (best == nullptr || b.size < best->size)) best = &b;
    }
    if (best != nullptr) {
      best->used = true;
      idle_bytes_ -= best->size;
      return best->address;
    }
    return fresh(n);
  }

  void give_back(void* address) noexcept {
    if (address == nullptr) return;
    const auto it = std::find_if(blocks_.begin(), blocks_.end(), [&](const block& b) { return b.address == address; });
    if (it == blocks_.end()) return;
    if (idle_bytes_ + it->size > max_idle_bytes) {
      std::free(it->address);
      *it = blocks_.back();
      blocks_.pop_back();
      return;
    }
    it->used = false;
    idle_bytes_ += it->size;
  }

  static void* alloc(void* self, std::size_t n) { return static_cast<block_cache*>(self)->take(n); }
  static void release(void* self, void* address) { static_cast<block_cache*>(self)->give_back(address); }

 private:
  // Quality 11 with a 16 MiB window needs about 100 MiB; keeping that idle per
  // worker would be a leak in all but name, so the cache is bounded.
  static constexpr std::size_t max_idle_bytes = 24 * 1024 * 1024;

  struct block {
    void* address;
    std::size_t size;
    bool used;
  };

  // Called from inside libbrotli (C): nothing may escape, so a failed vector
  // growth is an allocation failure, which brotli reports as such.
  void* fresh(std::size_t n) noexcept {
    void* address = std::malloc(n);
    if (address == nullptr) return nullptr;
    try {
      blocks_.push_back({address, n, true});
    } catch (...) {
      std::free(address);
      return nullptr;
    }
    return address;
  }

  std::vector<block> blocks_;
  std::size_t idle_bytes_ = 0;
};

// ngx_brotli's choice: a body of known size gets the smallest window (from
// 1 KiB) that holds it, up to the configured window.
int window_for(int configured, std::uint64_t size_hint) noexcept {
  const int limit = std::clamp(configured, BROTLI_MIN_WINDOW_BITS, BROTLI_MAX_WINDOW_BITS);
  if (size_hint == 0) return limit;
  int bits = BROTLI_MIN_WINDOW_BITS;
  while (bits < limit && size_hint > (std::uint64_t{1} << bits)) ++bits;
  return bits;
}

BrotliEncoderOperation operation_of(flush_kind f) noexcept {
  switch (f) {
    case flush_kind::none: return BROTLI_OPERATION_PROCESS;
    case flush_kind::sync: return BROTLI_OPERATION_FLUSH;
    case flush_kind::finish: break;
  }
  return BROTLI_OPERATION_FINISH;
}

class brotli_encoder final : public encoder {
 public:
  brotli_encoder() = default;
  brotli_encoder(const brotli_encoder&) = delete;
  brotli_encoder& operator=(const brotli_encoder&) = delete;
  ~brotli_encoder() override { drop(); }

  bool begin(const encoder_params& p, std::uint64_t size_hint) noexcept override {
    drop();
    state_ = BrotliEncoderCreateInstance(&block_cache::alloc, &block_cache::release, &cache_);
    if (state_ == nullptr) return false;
    const auto quality =
        static_cast<std::uint32_t>(std::clamp(p.brotli_quality, BROTLI_MIN_QUALITY, BROTLI_MAX_QUALITY));
    const auto window = static_cast<std::uint32_t>(window_for(p.brotli_window, size_hint));
    return BrotliEncoderSetParameter(state_, BROTLI_PARAM_QUALITY, quality) == BROTLI_TRUE &&
           BrotliEncoderSetParameter(state_, BROTLI_PARAM_LGWIN, window) == BROTLI_TRUE;
  }

  bool write(std::string_view input, flush_kind flush, std::string& out) override {
    if (state_ == nullptr) return false;
    const BrotliEncoderOperation op = operation_of(flush);
    std::size_t available_in = input.size();
    const auto* next_in = reinterpret_cast<const std::uint8_t*>(input.data());
    output_room room(out);
    std::size_t produced = 0;
    for (;;) {
      const std::size_t n =
          coded_room(flush == flush_kind::finish ? BrotliEncoderMaxCompressedSize(available_in) : 0, produced);
      std::size_t available_out = n;
      auto* next_out = reinterpret_cast<std::uint8_t*>(room.open(n));
      const BROTLI_BOOL ok =
          BrotliEncoderCompressStream(state_, op, &available_in, &next_in, &available_out, &next_out, nullptr);
      room.close(n - available_out);
      produced += n - available_out;
      if (ok != BROTLI_TRUE) return false;
      if (BrotliEncoderHasMoreOutput(state_) == BROTLI_TRUE || available_in != 0) continue;
      if (flush != flush_kind::finish || BrotliEncoderIsFinished(state_) == BROTLI_TRUE) return true;
    }
  }

  content_coding coding() const noexcept override { return content_coding::br; }

 private:
  void drop() noexcept {
    if (state_ != nullptr) BrotliEncoderDestroyInstance(state_);
    state_ = nullptr;
  }

  block_cache cache_;  // declared before state_: outlives every instance
  BrotliEncoderState* state_ = nullptr;
};

}  // namespace

std::unique_ptr<encoder> make_brotli_encoder() { return std::make_unique<brotli_encoder>(); }

}  // namespace stet::detail
