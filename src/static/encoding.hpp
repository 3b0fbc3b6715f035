#pragma once
// Choosing a precompressed sibling from Accept-Encoding (RFC 9110 12.5.3).

#include <cstdint>
#include <string_view>

namespace stet::detail {

enum class sibling_coding : std::uint8_t { identity, br, gzip };

/// The coding to send given the request's Accept-Encoding and which siblings
/// exist (`have_br`, `have_gzip`): the one with the highest q-value above 0,
/// br on a tie; identity when neither is acceptable. "*" covers codings not
/// listed; "x-gzip" counts as gzip.
sibling_coding choose_coding(std::string_view accept_encoding, bool have_br, bool have_gzip) noexcept;

}  // namespace stet::detail
