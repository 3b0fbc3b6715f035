#pragma once
// Redis stream entry ids ("MS-SEQ"), the ids the Redis bus hands out: compared
// as numbers, never as text ("9-0" is older than "10-0").

#include <compare>
#include <cstdint>
#include <optional>
#include <string_view>

namespace stet::detail {

struct stream_id {
  std::uint64_t ms = 0;
  std::uint64_t seq = 0;
  friend bool operator==(const stream_id&, const stream_id&) = default;
  // Written out: clang-tidy 14 takes a defaulted <=>'s comparisons with 0 for pointer literals.
  friend std::strong_ordering operator<=>(const stream_id& a, const stream_id& b) noexcept {
    return a.ms != b.ms ? a.ms <=> b.ms : a.seq <=> b.seq;
  }
};

/// "MS-SEQ", or "MS" (sequence 0); nullopt for anything else (a client's
/// Last-Event-ID is checked here before it reaches Redis).
std::optional<stream_id> parse_stream_id(std::string_view text) noexcept;

}  // namespace stet::detail
