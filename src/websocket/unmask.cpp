#include "websocket/unmask.hpp"

#include <cstring>

namespace stet::detail::ws {

namespace {

// The key as a 64-bit word whose first byte in memory is key[phase]: XORing a
// word loaded with memcpy then masks eight payload bytes at once whatever the
// machine's byte order.
std::uint64_t key_word(mask_key key, std::size_t phase) noexcept {
  std::array<std::uint8_t, 8> bytes{};
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = key[(phase + i) & 3];
  std::uint64_t word = 0;
  std::memcpy(&word, bytes.data(), sizeof word);
  return word;
}

void xor_word(char* p, std::uint64_t k) noexcept {
  std::uint64_t w = 0;
  std::memcpy(&w, p, sizeof w);
  w ^= k;
  std::memcpy(p, &w, sizeof w);
}

}  // namespace

std::size_t unmask(std::span<char> data, mask_key key, std::size_t phase) noexcept {
  char* p = data.data();
  std::size_t n = data.size();
  phase &= 3;
  // Bytes up to an 8-byte boundary one at a time, so the word loop's loads and
  // stores are aligned (cheaper, and never split across cache lines).
  while (n > 0 && (reinterpret_cast<std::uintptr_t>(p) & 7) != 0) {
    *p++ ^= static_cast<char>(key[phase]);
    phase = (phase + 1) & 3;
    --n;
  }
  const std::uint64_t k = key_word(key, phase);
  // Four independent words per round: the compiler keeps them in flight together.
  for (; n >= 32; n -= 32, p += 32) {
    xor_word(p, k);
    xor_word(p + 8, k);
    xor_word(p + 16, k);
    xor_word(p + 24, k);
  }
  for (; n >= 8; n -= 8, p += 8) xor_word(p, k);
  // A multiple of 8 bytes leaves the phase where it was.
  for (; n > 0; --n) {
    *p++ ^= static_cast<char>(key[phase]);
    phase = (phase + 1) & 3;
  }
  return phase;
}

}  // namespace stet::detail::ws
