#include "websocket/utf8.hpp"

#include <array>
#include <cstddef>
#include <cstring>

namespace stet::detail::ws {

namespace {

// A DFA over byte classes, straight from RFC 3629's well-formed sequences
// (Unicode table 3-7). States: 0 between characters, 1 rejected, 2-4 one, two
// or three continuation bytes (80-BF) still due, and 5-8 the second byte after
// the leads whose second byte is narrower: E0 (A0-BF, no overlong), ED (80-9F,
// no surrogates), F0 (90-BF, no overlong), F4 (80-8F, nothing above U+10FFFF).
enum byte_class : std::uint8_t { ascii, c80_8f, c90_9f, ca0_bf, invalid, lead2, e0, lead3, ed, f0, lead4, f4 };
constexpr std::size_t class_count = 12;
constexpr std::size_t state_count = 9;

constexpr std::array<std::uint8_t, 256> classes = [] {
  std::array<std::uint8_t, 256> t{};
  for (int b = 0; b < 256; ++b) {
    std::uint8_t c = invalid;
    if (b < 0x80)
      c = ascii;
    else if (b < 0x90)
      c = c80_8f;
    else if (b < 0xa0)
      c = c90_9f;
    else if (b < 0xc0)
      c = ca0_bf;
    else if (b < 0xc2)
      c = invalid;
    else if (b < 0xe0)
      c = lead2;
    else if (b == 0xe0)
      c = e0;
    else if (b == 0xed)
      c = ed;
    else if (b < 0xf0)
      c = lead3;
    else if (b == 0xf0)
      c = f0;
    else if (b < 0xf4)
      c = lead4;
    else if (b == 0xf4)
      c = f4;
    t[static_cast<std::size_t>(b)] = c;
  }
  return t;
}();

constexpr std::array<std::array<std::uint8_t, class_count>, state_count> transitions = [] {
  std::array<std::array<std::uint8_t, class_count>, state_count> t{};
  for (auto& row : t) row.fill(utf8_validator::reject);
  t[0][ascii] = 0;
  t[0][lead2] = 2;
  t[0][lead3] = 3;
  t[0][lead4] = 4;
  t[0][e0] = 5;
  t[0][ed] = 6;
  t[0][f0] = 7;
  t[0][f4] = 8;
  for (std::uint8_t c : {c80_8f, c90_9f, ca0_bf}) {
    t[2][c] = 0;
    t[3][c] = 2;
    t[4][c] = 3;
  }
  t[5][ca0_bf] = 2;
  t[6][c80_8f] = 2;
  t[6][c90_9f] = 2;
  t[7][c90_9f] = 3;
  t[7][ca0_bf] = 3;
  t[8][c80_8f] = 3;
  return t;
}();

constexpr std::uint64_t high_bits = 0x8080808080808080ull;

bool ascii_word(const char* p) noexcept {
  std::uint64_t w = 0;
  std::memcpy(&w, p, sizeof w);
  return (w & high_bits) == 0;
}

// 32 bytes with one test: the words' high bits ORed together first, so the
// loop branches once per 32 bytes rather than once per 8 (bench/websocket_bench.cpp,
// BM_ReadTextInPlace; docs/benchmarks.md, "WebSocket").
bool ascii_block(const char* p) noexcept {
  std::uint64_t w[4] = {};
  std::memcpy(w, p, sizeof w);
  return ((w[0] | w[1] | w[2] | w[3]) & high_bits) == 0;
}

}  // namespace

bool utf8_validator::feed(std::string_view bytes) noexcept {
  std::uint8_t state = state_;
  const char* p = bytes.data();
  const char* const end = p + bytes.size();
  while (p != end && state != reject) {
    // Text is mostly ASCII: between characters, skip it eight bytes at a time.
    if (state == 0) {
      while (end - p >= 32 && ascii_block(p)) p += 32;
      while (end - p >= 8 && ascii_word(p)) p += 8;
      if (p == end) break;
    }
    state = transitions[state][classes[static_cast<unsigned char>(*p)]];
    ++p;
  }
  state_ = state;
  return state != reject;
}

bool is_valid_utf8(std::string_view text) noexcept {
  utf8_validator v;
  return v.feed(text) && v.complete();
}

}  // namespace stet::detail::ws
