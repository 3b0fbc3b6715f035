#pragma once
// How the request-path targets cut their input into reads: the first bytes
// are a plan of piece sizes, so libFuzzer mutates the cuts along with the bytes
// and a crash reproduces with the very same cuts.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace stet::fuzz {

struct split_input {
  std::string_view payload;         ///< the bytes to deliver
  std::vector<std::size_t> pieces;  ///< their sizes, in order, summing to payload.size()
};

/// Byte 0 says how many plan bytes follow (0-15); each plan byte b is a piece of
/// b + 1 bytes; the plan repeats until the payload is used up. No plan: one piece.
inline split_input take_splits(const std::uint8_t* data, std::size_t size) {
  split_input out;
  if (size == 0) return out;
  const std::size_t plan_size = std::min<std::size_t>(data[0] & 15u, size - 1);
  const std::uint8_t* plan = data + 1;
  out.payload = std::string_view(reinterpret_cast<const char*>(data) + 1 + plan_size, size - 1 - plan_size);
  std::size_t left = out.payload.size();
  for (std::size_t i = 0; left > 0; ++i) {
    const std::size_t piece = plan_size == 0 ? left : std::min<std::size_t>(plan[i % plan_size] + 1u, left);
    out.pieces.push_back(piece);
    left -= piece;
  }
  return out;
}

}  // namespace stet::fuzz
