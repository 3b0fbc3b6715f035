#include "response/compress/encoder_pool.hpp"

#include "counters/memo_stats.hpp"

#include <array>
#include <vector>

namespace stet::detail {
namespace {

class encoder_pool {
 public:
  std::unique_ptr<encoder> take(content_coding c) {
    std::vector<std::unique_ptr<encoder>>& idle = idle_[index(c)];
    memo_stats& stats = this_thread_memo_stats();
    if (idle.empty()) {
      ++stats.compressor_creations;
      return make_encoder(c);
    }
    ++stats.compressor_reuses;
    std::unique_ptr<encoder> e = std::move(idle.back());
    idle.pop_back();
    stats.compressors_idle.set(stats.compressors_idle.get() - 1);
    return e;
  }

  void put(std::unique_ptr<encoder> e) noexcept {
    std::vector<std::unique_ptr<encoder>>& idle = idle_[index(e->coding())];
    if (idle.size() >= idle_encoders_per_coding) return;  // `e` is freed
    idle.push_back(std::move(e));                         // reserved: cannot throw
    memo_stats& stats = this_thread_memo_stats();
    stats.compressors_idle.set(stats.compressors_idle.get() + 1);
  }

  std::size_t size() const noexcept {
    std::size_t n = 0;
    for (const auto& idle : idle_) n += idle.size();
    return n;
  }

  encoder_pool() {
    for (auto& idle : idle_) idle.reserve(idle_encoders_per_coding);
  }

 private:
  static std::size_t index(content_coding c) noexcept { return static_cast<std::size_t>(c) - 1; }
  std::array<std::vector<std::unique_ptr<encoder>>, compressed_coding_count> idle_;
};

encoder_pool& this_thread_pool() {
  thread_local encoder_pool pool;
  return pool;
}

}  // namespace

encoder_lease& encoder_lease::operator=(encoder_lease&& other) noexcept {
  if (this != &other) {
    release();
    encoder_ = std::move(other.encoder_);
    owner_ = other.owner_;
  }
  return *this;
}

encoder_lease::~encoder_lease() { release(); }

void encoder_lease::release() noexcept {
  if (encoder_ != nullptr && owner_ == std::this_thread::get_id()) this_thread_pool().put(std::move(encoder_));
  encoder_.reset();
}

encoder_lease lease_encoder(content_coding c, const encoder_params& p, std::uint64_t size_hint) {
  if (c == content_coding::identity) return {};
  std::unique_ptr<encoder> e = this_thread_pool().take(c);
  if (e == nullptr || !e->begin(p, size_hint)) return {};
  return {std::move(e), std::this_thread::get_id()};
}

std::size_t idle_encoders() noexcept { return this_thread_pool().size(); }

}  // namespace stet::detail
