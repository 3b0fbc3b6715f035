#pragma once
// The spelling of a byte string that every percent-decoder must undo.

#include <string>
#include <string_view>

namespace stet::fuzz {

/// `bytes` with every byte written as %XX: the encoding every decoder must undo.
inline std::string percent_encode_all(std::string_view bytes) {
  constexpr char hex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(bytes.size() * 3);
  for (const char ch : bytes) {
    const auto c = static_cast<unsigned char>(ch);
    out += '%';
    out += hex[c >> 4];
    out += hex[c & 15];
  }
  return out;
}

}  // namespace stet::fuzz
