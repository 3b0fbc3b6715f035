#include "websocket/deflate_pool.hpp"

#include <algorithm>
#include <utility>
#include <vector>

namespace stet::detail::ws {
namespace {

// A handful of parameter sets at most (one per route setting in use), so a
// vector searched in order beats any map.
template <class Stream, class Key>
class pool {
 public:
  std::unique_ptr<Stream> take(const Key& key) {
    for (slot& s : slots_) {
      if (!(s.key == key) || s.idle.empty()) continue;
      std::unique_ptr<Stream> out = std::move(s.idle.back());
      s.idle.pop_back();
      ++stats_.reused;
      --stats_.idle;
      return out;
    }
    return nullptr;
  }

  void put(std::unique_ptr<Stream> stream, const Key& key) noexcept {
    // Streams come back between messages, already reset (no_context_takeover
    // resets after each; deflateReset clears 64 KiB of hash, so not twice).
    if (!stream || !stream->valid()) return;
    for (slot& s : slots_) {
      if (!(s.key == key)) continue;
      if (s.idle.size() < idle_streams_per_kind) {
        s.idle.push_back(std::move(stream));  // reserved: cannot throw
        ++stats_.idle;
      }
      return;
    }
    try {
      slot& s = slots_.emplace_back(key);
      s.idle.push_back(std::move(stream));
      ++stats_.idle;
    } catch (...) {  // the stream is freed: pooling is an optimisation
    }
  }

  deflate_pool_stats& stats() noexcept { return stats_; }

 private:
  struct slot {
    explicit slot(const Key& k) : key(k) { idle.reserve(idle_streams_per_kind); }
    Key key;
    std::vector<std::unique_ptr<Stream>> idle;
  };
  std::vector<slot> slots_;
  deflate_pool_stats stats_;
};

pool<deflater, deflate_key>& deflaters() {
  thread_local pool<deflater, deflate_key> p;
  return p;
}

pool<inflater, std::uint8_t>& inflaters() {
  thread_local pool<inflater, std::uint8_t> p;
  return p;
}

}  // namespace

std::unique_ptr<deflater> lease_deflater(const deflate_key& key) {
  if (std::unique_ptr<deflater> d = deflaters().take(key)) return d;
  ++deflaters().stats().created;
  auto d = std::make_unique<deflater>(key.window_bits, key.level, key.mem_level, true);
  return d->valid() ? std::move(d) : nullptr;
}

void return_deflater(std::unique_ptr<deflater> d, const deflate_key& key) noexcept {
  deflaters().put(std::move(d), key);
}

std::unique_ptr<inflater> lease_inflater(std::uint8_t window_bits) {
  if (std::unique_ptr<inflater> i = inflaters().take(window_bits)) return i;
  ++inflaters().stats().created;
  auto i = std::make_unique<inflater>(window_bits, true);
  return i->valid() ? std::move(i) : nullptr;
}

void return_inflater(std::unique_ptr<inflater> i, std::uint8_t window_bits) noexcept {
  inflaters().put(std::move(i), window_bits);
}

deflate_pool_stats this_thread_deflate_pool_stats() noexcept {
  const deflate_pool_stats& d = deflaters().stats();
  const deflate_pool_stats& i = inflaters().stats();
  return {d.created + i.created, d.reused + i.reused, d.idle + i.idle};
}

}  // namespace stet::detail::ws
