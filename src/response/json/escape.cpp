#include "response/json/escape.hpp"

#include <stet/json.hpp>

#include <array>
#include <bit>
#include <cstdint>
#include <cstring>

namespace stet::json {
namespace detail {
namespace {

using namespace std::string_view_literals;
using byte = unsigned char;

constexpr std::array<bool, 256> plain_bytes = [] {
  std::array<bool, 256> plain{};
  for (int c = 0x20; c < 0x80; ++c) plain[c] = true;
  plain['"'] = false;
  plain['\\'] = false;
  return plain;
}();

// Well-formed UTF-8 (Unicode 15, table 3-7): sequence length by lead byte and the
// range allowed for the second byte, which is what excludes overlong forms,
// surrogates and code points past U+10FFFF. Length 0: never a lead byte.
struct utf8_lead {
  std::uint8_t length;
  byte second_min;
  byte second_max;
};

constexpr std::array<utf8_lead, 256> utf8_leads = [] {
  std::array<utf8_lead, 256> leads{};
  for (int c = 0xC2; c <= 0xDF; ++c) leads[c] = {2, 0x80, 0xBF};
  for (int c = 0xE1; c <= 0xEF; ++c) leads[c] = {3, 0x80, 0xBF};
  leads[0xE0] = {3, 0xA0, 0xBF};
  leads[0xED] = {3, 0x80, 0x9F};
  for (int c = 0xF1; c <= 0xF3; ++c) leads[c] = {4, 0x80, 0xBF};
  leads[0xF0] = {4, 0x90, 0xBF};
  leads[0xF4] = {4, 0x80, 0x8F};
  return leads;
}();

// The length of the well-formed sequence at p, or minus the length of its maximal
// ill-formed subpart: one U+FFFD per subpart is the replacement Unicode recommends
// and WHATWG's decoder (so every browser) applies, making the output predictable.
int utf8_sequence(const byte* p, const byte* end) noexcept {
  const utf8_lead lead = utf8_leads[*p];
  if (lead.length == 0) return -1;
  const std::ptrdiff_t available = end - p;
  if (available < 2 || p[1] < lead.second_min || p[1] > lead.second_max) return -1;
  for (int i = 2; i < lead.length; ++i) {
    if (i >= available || (p[i] & 0xC0) != 0x80) return -i;
  }
  return lead.length;
}

constexpr std::string_view replacement = "\xEF\xBF\xBD";  // U+FFFD

// Bytes of plain input from p, using the word test where byte order allows.
std::size_t plain_prefix(const byte* p, const byte* end) noexcept {
  const byte* q = p;
  if constexpr (std::endian::native == std::endian::little) {
    while (end - q >= 8) {
      if (const std::uint64_t flagged = special_bytes(q); flagged != 0) {
        return static_cast<std::size_t>(q - p) + static_cast<std::size_t>(std::countr_zero(flagged) / 8);
      }
      q += 8;
    }
  }
  while (q != end && plain_bytes[*q]) ++q;
  return static_cast<std::size_t>(q - p);
}

char* write_escape(char* dst, byte c) noexcept {
  char letter = 0;
  switch (c) {
    case '"': letter = '"'; break;
    case '\\': letter = '\\'; break;
    case '\b': letter = 'b'; break;
    case '\f': letter = 'f'; break;
    case '\n': letter = 'n'; break;
    case '\r': letter = 'r'; break;
    case '\t': letter = 't'; break;
    default: {
      constexpr std::string_view hex = "0123456789abcdef";
      const char text[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 0xF]};
      std::memcpy(dst, text, sizeof text);
      return dst + sizeof text;
    }
  }
  dst[0] = '\\';
  dst[1] = letter;
  return dst + 2;
}

// The last bytes of a text, when fewer than a word remain, without a byte loop:
// if the text's last eight (or, for a text of four to seven bytes, its first and
// last four) bytes are all plain, they are copied as words and the text is done.
// Plain bytes before p in that word were copied one for one, so they are the
// bytes just before dst and rewriting them changes nothing. Null: do it bytewise.
char* plain_tail(char* dst, const byte* begin, const byte* p, const byte* end) noexcept {
  const auto rest = end - p;
  if (end - begin >= 8) {
    if (special_bytes(end - 8) != 0) return nullptr;
    std::memcpy(dst + rest - 8, end - 8, 8);
    return dst + rest;
  }
  if (p != begin || rest < 4 || special_bytes<std::uint32_t>(p) != 0 || special_bytes<std::uint32_t>(end - 4) != 0) {
    return nullptr;
  }
  std::memcpy(dst, p, 4);
  std::memcpy(dst + rest - 4, end - 4, 4);
  return dst + rest;
}

}  // namespace

char* escape_to(char* dst, std::string_view text) noexcept {
  const byte* p = reinterpret_cast<const byte*>(text.data());
  const byte* const begin = p;
  const byte* const end = p + text.size();
  bool tail_tried = false;
  while (p != end) {
    // Copy whole words and keep only their plain prefix: the room escape_bound()
    // promises makes the extra bytes harmless, and they are overwritten next.
    if constexpr (std::endian::native == std::endian::little) {
      if (end - p >= 8) {
        std::memcpy(dst, p, 8);
        const std::uint64_t flagged = special_bytes(p);
        const auto plain = static_cast<std::size_t>(flagged == 0 ? 8 : std::countr_zero(flagged) / 8);
        p += plain;
        dst += plain;
        if (plain == 8) continue;
      } else if (!tail_tried) {
        tail_tried = true;
        if (char* done = plain_tail(dst, begin, p, end)) return done;
      }
    }
    const byte c = *p;
    if (plain_bytes[c]) {
      *dst++ = static_cast<char>(c);
      ++p;
    } else if (c < 0x80) {
      dst = write_escape(dst, c);
      ++p;
    } else if (const int length = utf8_sequence(p, end); length > 0) {
      std::memcpy(dst, p, static_cast<std::size_t>(length));
      dst += length;
      p += length;
    } else {
      std::memcpy(dst, replacement.data(), replacement.size());
      dst += replacement.size();
      p += -length;
    }
  }
  return dst;
}

void escape_runs(std::string& out, std::string_view text) {
  const byte* p = reinterpret_cast<const byte*>(text.data());
  const byte* const end = p + text.size();
  const byte* run = p;  // start of the bytes not yet appended
  const auto append_run = [&](const byte* last) {
    out.append(reinterpret_cast<const char*>(run), static_cast<std::size_t>(last - run));
  };
  while (p != end) {
    p += plain_prefix(p, end);
    if (p == end) break;
    if (*p < 0x80) {
      append_run(p);
      char escaped[6];
      out.append(escaped, static_cast<std::size_t>(write_escape(escaped, *p) - escaped));
      run = ++p;
    } else if (const int length = utf8_sequence(p, end); length > 0) {
      p += length;  // well-formed: stays in the run
    } else {
      append_run(p);
      out.append(replacement);
      p += -length;
      run = p;
    }
  }
  append_run(end);
}

}  // namespace detail

void escape(std::string& out, std::string_view text) { detail::escape_runs(out, text); }

}  // namespace stet::json
