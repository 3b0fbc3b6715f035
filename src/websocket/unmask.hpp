#pragma once
// Client-to-server masking (RFC 6455 5.3): every payload byte i is XORed with
// key[i % 4]. Undone in place, a word at a time.

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

namespace stet::detail::ws {

/// A frame's 4-byte masking key, in wire order.
using mask_key = std::array<std::uint8_t, 4>;

/// XORs `data` with `key` in place, starting at key byte `phase` (0-3: how many
/// payload bytes of this frame came before `data`), and returns the phase for
/// the frame's next piece. Masking and unmasking are the same operation.
std::size_t unmask(std::span<char> data, mask_key key, std::size_t phase) noexcept;

}  // namespace stet::detail::ws
