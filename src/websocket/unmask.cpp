#include "websocket/unmask.hpp"

#include <bit>
#include <cstring>

namespace stet::detail::ws {

namespace {

// The key as a 64-bit word whose first byte in memory is key[phase]: XORing a
// word loaded with memcpy then masks eight payload bytes at once. A rotation
// of the key's four bytes, whose direction depends on the byte order.
std::uint64_t key_word(mask_key key, std::size_t phase) noexcept {
  std::uint32_t k = 0;
  std::memcpy(&k, key.data(), sizeof k);
  const int shift = static_cast<int>(8 * phase);
  k = std::endian::native == std::endian::little ? std::rotr(k, shift) : std::rotl(k, shift);
  return (std::uint64_t{k} << 32) | k;
}

template <class Word>
void xor_word(char* p, Word k) noexcept {
  Word w = 0;
  std::memcpy(&w, p, sizeof w);
  w ^= k;
  std::memcpy(p, &w, sizeof w);
}

// Payloads this long are worth aligning first: a few single bytes buy
// aligned loads and stores for the rest (never split across cache lines).
constexpr std::size_t align_from = 64;

}  // namespace

std::size_t unmask(std::span<char> data, mask_key key, std::size_t phase) noexcept {
  char* p = data.data();
  std::size_t n = data.size();
  phase &= 3;
  if (n >= align_from) {
    for (; (reinterpret_cast<std::uintptr_t>(p) & 7) != 0; ++p, --n) {
      *p = static_cast<char>(static_cast<unsigned char>(*p) ^ key[phase]);
      phase = (phase + 1) & 3;
    }
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
  // Multiples of 4 bytes leave the phase where it was, so the word's first
  // half still fits, and the last bytes start at key[phase] too.
  if (n >= 4) {
    xor_word(p, static_cast<std::uint32_t>(std::endian::native == std::endian::little ? k : k >> 32));
    p += 4;
    n -= 4;
  }
  for (std::size_t i = 0; i < n; ++i) p[i] = static_cast<char>(static_cast<unsigned char>(p[i]) ^ key[(phase + i) & 3]);
  return (phase + n) & 3;
}

}  // namespace stet::detail::ws
