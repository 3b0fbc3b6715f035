#include "websocket/deflate_stream.hpp"

#include <zlib.h>

#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>
#include <type_traits>

namespace stet::detail::ws {

namespace {

constexpr std::string_view flush_tail{"\x00\x00\xff\xff", 4};

// zlib counts in uInt; a longer piece is fed in slices.
uInt slice(std::size_t n) noexcept { return static_cast<uInt>(std::min<std::size_t>(n, UINT_MAX)); }

Bytef* bytes(const char* p) noexcept { return reinterpret_cast<Bytef*>(const_cast<char*>(p)); }

// Makes room past `used` (never beyond `cap`): half as much again as `used`,
// at least `step`. Only the new room is zero-filled and the buffer grows
// geometrically, so a long message costs amortised O(1) per byte, and its
// capacity stays within about 1.5 times the output so far. False when `used`
// is already at the cap.
bool grow(std::string& out, std::size_t used, std::size_t cap, std::size_t step) {
  if (used >= cap) return false;
  const std::size_t size = used + std::min(std::max(step, used / 2), cap - used);
  reserve_exactly(out, size);
  out.resize(size);
  return true;
}

// A zlib stream with the count of the bytes zlib allocated for it (its state,
// window and hash tables), so that a session can say what it holds. The
// stream comes first: a z_stream_s* handed out is this box's address.
struct counted_stream {
  z_stream_s z{};
  std::size_t bytes = 0;
};
static_assert(std::is_standard_layout_v<counted_stream>);

// zlib's allocation hooks: each block carries its size in front, aligned as malloc's.
constexpr std::size_t block_head = alignof(std::max_align_t);

voidpf counted_alloc(voidpf opaque, uInt items, uInt size) noexcept {
  const std::size_t n = std::size_t{items} * size;
  void* p = std::malloc(block_head + n);
  if (p == nullptr) return Z_NULL;
  std::memcpy(p, &n, sizeof n);
  static_cast<counted_stream*>(opaque)->bytes += n;
  return static_cast<char*>(p) + block_head;
}

void counted_free(voidpf opaque, voidpf address) noexcept {
  if (address == Z_NULL) return;
  void* p = static_cast<char*>(address) - block_head;
  std::size_t n = 0;
  std::memcpy(&n, p, sizeof n);
  static_cast<counted_stream*>(opaque)->bytes -= n;
  std::free(p);
}

counted_stream* box_of(z_stream_s* s) noexcept { return reinterpret_cast<counted_stream*>(s); }

// A stream set up by `init` (deflateInit2 or inflateInit2), or null when
// either the allocation or zlib fails.
template <class Init>
z_stream_s* new_stream(Init&& init) noexcept {
  auto* box = new (std::nothrow) counted_stream{};
  if (box == nullptr) return nullptr;
  box->z.zalloc = counted_alloc;
  box->z.zfree = counted_free;
  box->z.opaque = box;
  if (init(&box->z) != Z_OK) {
    delete box;
    return nullptr;
  }
  return &box->z;
}

std::size_t held_by(const z_stream_s* s) noexcept {
  return s == nullptr ? 0 : sizeof(counted_stream) + box_of(const_cast<z_stream_s*>(s))->bytes;
}

// One deflate() or inflate() call (`zlib`) with a sync flush, from the `left`
// bytes at next_in into out[used, out.size()); moves `left` and `used` on by
// what it took and gave, and returns zlib's code.
int zlib_step(z_stream_s& s, int (*zlib)(z_streamp, int), std::size_t& left, std::string& out, std::size_t& used) {
  s.avail_in = slice(left);
  s.next_out = bytes(out.data() + used);
  s.avail_out = slice(out.size() - used);
  const uInt in_before = s.avail_in;
  const uInt out_before = s.avail_out;
  const int rc = zlib(&s, Z_SYNC_FLUSH);
  left -= in_before - s.avail_in;
  used += out_before - s.avail_out;
  return rc;
}

}  // namespace

void reserve_exactly(std::string& s, std::size_t capacity) {
  if (capacity <= s.capacity()) return;
  if (capacity >= 2 * s.capacity()) {
    s.reserve(capacity);
    return;
  }
  // std::string::reserve() would double the capacity instead.
  std::string bigger;
  bigger.reserve(capacity);
  bigger.append(s);
  s.swap(bigger);
}

void deflater::stream_deleter::operator()(z_stream_s* s) const noexcept {
  deflateEnd(s);
  delete box_of(s);
}

deflater::deflater(int window_bits, int level, int mem_level, bool no_context_takeover) noexcept
    : stream_(new_stream([&](z_stream_s* s) {
        return deflateInit2(s, std::clamp(level, 1, 9), Z_DEFLATED, -std::clamp(window_bits, 9, 15),
                            std::clamp(mem_level, 1, 9), Z_DEFAULT_STRATEGY);
      })),
      no_context_takeover_(no_context_takeover) {}

deflater::~deflater() = default;

std::size_t deflater::held_bytes() const noexcept { return held_by(stream_.get()); }

void deflater::reset() noexcept {
  if (stream_) deflateReset(stream_.get());
}

bool deflater::compress(std::string_view message, std::string& out) {
  if (!stream_) return false;
  z_stream_s& s = *stream_;
  const std::size_t start = out.size();
  std::size_t used = start;
  const std::size_t step = 4096;
  out.resize(start + deflateBound(&s, slice(message.size())) + 16);
  s.next_in = bytes(message.data());
  std::size_t left = message.size();
  while (true) {
    const int rc = zlib_step(s, ::deflate, left, out, used);
    if (rc != Z_OK && rc != Z_BUF_ERROR) return false;
    // Done when every byte went in and zlib had room to spare for its flush.
    if (left == 0 && s.avail_out != 0) break;
    if (s.avail_out == 0) grow(out, used, std::numeric_limits<std::size_t>::max(), step);
  }
  out.resize(used);
  if (used - start < flush_tail.size() || std::string_view(out).substr(used - 4) != flush_tail) return false;
  out.resize(used - flush_tail.size());
  if (no_context_takeover_) deflateReset(&s);
  return true;
}

void inflater::stream_deleter::operator()(z_stream_s* s) const noexcept {
  inflateEnd(s);
  delete box_of(s);
}

inflater::inflater(int window_bits, bool no_context_takeover) noexcept
    : stream_(new_stream([&](z_stream_s* s) { return inflateInit2(s, -std::clamp(window_bits, 9, 15)); })),
      no_context_takeover_(no_context_takeover) {}

inflater::~inflater() = default;

std::size_t inflater::held_bytes() const noexcept { return held_by(stream_.get()); }

void inflater::reset() noexcept {
  if (stream_) inflateReset(stream_.get());
  ended_ = false;
}

inflater::status inflater::inflate(std::string_view piece, std::string& out, std::size_t limit) {
  return run(piece, out, limit);
}

inflater::status inflater::finish(std::string& out, std::size_t limit) {
  const status st = run(flush_tail, out, limit);
  if (ended_ && !no_context_takeover_) {
    restart_keeping_window();
  } else if (ended_ || no_context_takeover_) {
    reset();
  }
  return st;
}

inflater::status inflater::run(std::string_view input, std::string& out, std::size_t limit) {
  if (!stream_) return status::no_memory;
  // After a final block the message's remaining bytes mean nothing; and no
  // output is ever left pending between calls (each ends with room to spare).
  if (ended_ || input.empty()) return status::ok;
  z_stream_s& s = *stream_;
  const std::size_t cap = std::min(limit, std::numeric_limits<std::size_t>::max() - 1) + 1;
  std::size_t used = out.size();
  std::size_t left = input.size();
  const std::size_t step = std::max<std::size_t>(4096, 2 * left);
  s.next_in = bytes(input.data());
  while (true) {
    if (used == out.size() && !grow(out, used, cap, step)) break;
    const int rc = zlib_step(s, ::inflate, left, out, used);
    if (rc == Z_STREAM_END) {
      ended_ = true;
      break;
    }
    // On an error the output before the bad bytes is kept: the caller checks
    // it (UTF-8) before reporting the error, as it would have had the bytes
    // come in smaller pieces.
    if (rc == Z_MEM_ERROR || (rc != Z_OK && rc != Z_BUF_ERROR)) {
      out.resize(used);
      return rc == Z_MEM_ERROR ? status::no_memory : status::corrupt;
    }
    // Finished when the input is used up and zlib did not fill the room it had
    // (a full buffer may mean more output is pending).
    if (left == 0 && s.avail_out != 0) break;
  }
  out.resize(used);
  return used > limit ? status::too_big : status::ok;
}

// A message whose data ended with a final block ended zlib's stream; with
// context takeover the next message may still refer to this one's bytes, so
// the window is carried into the fresh stream as its dictionary.
void inflater::restart_keeping_window() noexcept {
  z_stream_s& s = *stream_;
  uInt size = 0;
  inflateGetDictionary(&s, nullptr, &size);
  std::unique_ptr<Bytef[]> window(new (std::nothrow) Bytef[size == 0 ? 1 : size]);
  const bool kept = window && inflateGetDictionary(&s, window.get(), &size) == Z_OK;
  reset();
  if (kept && size != 0) inflateSetDictionary(&s, window.get(), size);
}

}  // namespace stet::detail::ws
