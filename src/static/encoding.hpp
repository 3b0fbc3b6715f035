#pragma once
// Choosing a precompressed sibling (.br, .gz) from Accept-Encoding (RFC 9110
// 12.5.3), by the same parse and negotiation as every other coded answer
// (response/compress/accept_encoding.hpp).

#include "response/compress/accept_encoding.hpp"

#include <cstdint>

namespace stet::detail {

enum class sibling_coding : std::uint8_t { identity, br, gzip };

/// The sibling to send given the request's Accept-Encoding weights `w` and
/// which siblings exist (`have_br`, `have_gzip`): negotiate() among them, br
/// first, so the highest weight above 0 wins and br takes a tie; identity when
/// neither is acceptable or the client weighs identity higher.
sibling_coding choose_coding(const accept_weights& w, bool have_br, bool have_gzip) noexcept;

}  // namespace stet::detail
