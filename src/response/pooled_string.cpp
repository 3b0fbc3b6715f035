#include <stet/detail/pooled_string.hpp>

#include <vector>

namespace stet::detail {
namespace {

// Bounded per-thread free list of string buffers. Keyed on nothing: any buffer
// fits any body; buffers over max_pooled_capacity are freed instead of kept, so
// one huge response does not pin memory on a worker.
constexpr std::size_t max_pooled_buffers = 64;
constexpr std::size_t max_pooled_capacity = 64 * 1024;
constexpr std::size_t initial_capacity = 512;
const std::size_t inline_capacity = std::string().capacity();

struct buffer_pool {
  std::vector<std::string> free;
  bool alive = true;
  buffer_pool() { free.reserve(max_pooled_buffers); }
  ~buffer_pool() { alive = false; }
};

buffer_pool& pool() noexcept {
  thread_local buffer_pool instance;
  return instance;
}

}  // namespace

std::string& pooled_string::writable() {
  if (text_.capacity() > inline_capacity) return text_;
  buffer_pool& p = pool();
  if (p.alive && !p.free.empty()) {
    // The spare takes the (inline, so short) text and trades places with it:
    // one copy and a swap, where moving out and back in cost three moves.
    std::string& spare = p.free.back();
    spare.assign(text_);
    text_.swap(spare);
    p.free.pop_back();
  } else {
    text_.reserve(initial_capacity);
  }
  return text_;
}

void pooled_string::recycle() noexcept {
  const std::size_t capacity = text_.capacity();
  if (capacity <= inline_capacity || capacity > max_pooled_capacity) return;
  buffer_pool& p = pool();
  if (!p.alive || p.free.size() >= max_pooled_buffers) return;
  text_.clear();
  p.free.push_back(std::move(text_));  // capacity reserved up front: cannot throw
}

}  // namespace stet::detail
