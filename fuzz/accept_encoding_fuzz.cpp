// Target 7: the Accept-Encoding parser, its per-thread memo and negotiation.
// Every weight is -1 or 0..1000; the memo answers exactly what a fresh parse
// does and stays bounded; negotiation only ever picks an offered coding with
// a weight above 0, or identity, and calls a response unacceptable only when
// identity is refused too.

#include "response/compress/accept_encoding.hpp"
#include "response/compress/accept_encoding_memo.hpp"
#include "support/require.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace {

using stet::content_coding;
using stet::fuzz::require;

bool in_range(std::int16_t w) { return w == -1 || (w >= 0 && w <= 1000); }

void check_negotiation(const stet::detail::accept_weights& w, std::string_view value) {
  constexpr std::array<content_coding, 3> offered = {content_coding::br, content_coding::zstd, content_coding::gzip};
  const stet::detail::negotiation n = stet::detail::negotiate(w, offered);
  const int chosen = stet::detail::weight_of(w, n.coding);
  require(n.coding == content_coding::identity || chosen > 0, "a chosen coding is acceptable", value);
  for (content_coding c : offered) {
    require(stet::detail::weight_of(w, c) <= chosen || n.coding == content_coding::identity || !n.acceptable,
            "no offered coding weighs more than the chosen one", value);
  }
  const bool any = stet::detail::weight_of(w, content_coding::identity) > 0 ||
                   stet::detail::weight_of(w, content_coding::gzip) > 0 ||
                   stet::detail::weight_of(w, content_coding::br) > 0 ||
                   stet::detail::weight_of(w, content_coding::zstd) > 0;
  require(n.acceptable == any, "406 exactly when nothing, identity included, is acceptable", value);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view value(reinterpret_cast<const char*>(data), size);
  const stet::detail::accept_weights w = stet::detail::parse_accept_encoding(value);
  require(in_range(w.gzip) && in_range(w.br) && in_range(w.zstd) && in_range(w.identity) && in_range(w.star),
          "weights are -1 or thousandths", value);
  // The memo keys on bytes: a copy elsewhere must hit and answer the same.
  const std::string first(value);
  const std::string second(value);
  require(stet::detail::cached_accept_encoding(first) == w, "a miss answers as a parse", value);
  require(stet::detail::cached_accept_encoding(second) == w, "a hit answers as a parse", value);
  require(stet::detail::accept_encoding_memo_size() <= stet::detail::accept_encoding_memo_capacity,
          "the memo stays bounded", value);
  check_negotiation(w, value);
  return 0;
}
