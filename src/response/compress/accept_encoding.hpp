#pragma once
// Accept-Encoding (RFC 9110 section 12.5.3): the weights a request gives each
// content coding, and the coding a response is sent in. Parsed once per
// distinct header value per thread (accept_encoding_memo.hpp), because a
// browser sends the same value on every request.

#include <stet/compression.hpp>

#include <cstdint>
#include <span>
#include <string_view>

namespace stet::detail {

/// The weights in one Accept-Encoding value, in thousandths (0..1000), or -1
/// where the value does not mention the coding. Members that do not follow the
/// grammar (a coding that is not a token, a parameter other than one q, a
/// malformed qvalue such as "q=0.0000" or "q=2") are ignored as if absent:
/// reading a malformed weight as 1 could compress for a client that meant 0.
/// The first mention of a coding counts; "x-gzip" is gzip; codings stet does not
/// produce (deflate, compress, ...) are skipped.
struct accept_weights {
  std::int16_t gzip = -1;
  std::int16_t br = -1;
  std::int16_t zstd = -1;
  std::int16_t identity = -1;
  std::int16_t star = -1;

  friend bool operator==(const accept_weights&, const accept_weights&) = default;
};

/// Parses one Accept-Encoding field value (several fields: join them with ",").
accept_weights parse_accept_encoding(std::string_view value) noexcept;

/// The weight `w` gives coding `c`: its own entry, else "*", else 0 (a coding
/// the client did not name is not acceptable) - except identity, which is
/// acceptable unless excluded by "identity;q=0" or by "*;q=0" alone, and then
/// weighs 1, the least a coding can weigh: acceptable, but never preferred to
/// a coding the client named.
int weight_of(const accept_weights& w, content_coding c) noexcept;

/// The result of negotiation.
struct negotiation {
  content_coding coding = content_coding::identity;
  /// False only when identity is refused and none of the offered codings is
  /// acceptable: a 406 candidate (RFC 9110 allows sending identity anyway).
  bool acceptable = true;

  friend bool operator==(const negotiation&, const negotiation&) = default;
};

/// The coding to send among `offered` (the server's preference, first = most
/// preferred; identity entries are ignored): the highest weight above 0, ties
/// going to the earlier in `offered`; identity instead when the client weighs
/// identity strictly higher than that coding, or accepts none of them.
negotiation negotiate(const accept_weights& w, std::span<const content_coding> offered) noexcept;

}  // namespace stet::detail
