// Target 7: the Accept-Encoding parser, its per-thread memo and negotiation.
// Every weight is -1 or 0..1000; the memo answers exactly what a fresh parse
// does and stays bounded; negotiation only ever picks an offered coding with
// a weight above 0, or identity, and calls a response unacceptable only when
// identity is refused too. And both the weights and the coding chosen (for
// several server preference lists) are exactly those of a reference reading
// of RFC 9110 12.5.3 written here, so a negotiator that always answered
// identity, or ignored the client's weights, fails.

#include "response/compress/accept_encoding.hpp"
#include "response/compress/accept_encoding_memo.hpp"
#include "support/reference_text.hpp"
#include "support/require.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace {

namespace reference = stet::fuzz::reference;

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

// ---- the reference: RFC 9110 12.5.3 read afresh ----------------------------
// Accept-Encoding = #( codings [ weight ] ); codings = content-coding /
// "identity" / "*"; weight = OWS ";" OWS "q=" qvalue; qvalue = ( "0" [ "."
// 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] ). A member off the grammar is
// ignored; the first mention of a coding counts; "x-gzip" is gzip.
struct reference_weights {
  std::optional<int> gzip, br, zstd, identity, star;
};

std::optional<int> ref_qvalue(std::string_view q) {
  if (q.empty() || q.size() > 5 || (q[0] != '0' && q[0] != '1')) return std::nullopt;
  if (q.size() > 1 && q[1] != '.') return std::nullopt;
  int thousandths = 0;
  int scale = 100;
  for (std::size_t i = 2; i < q.size(); ++i, scale /= 10) {
    if (q[i] < '0' || q[i] > '9') return std::nullopt;
    if (q[0] == '1' && q[i] != '0') return std::nullopt;
    thousandths += (q[i] - '0') * scale;
  }
  return (q[0] == '1' ? 1000 : 0) + thousandths;
}

reference_weights reference_parse(std::string_view value) {
  reference_weights w;
  std::size_t start = 0;
  while (start <= value.size()) {
    const std::size_t comma = value.find(',', start);
    const std::size_t end = comma == std::string_view::npos ? value.size() : comma;
    const std::string_view member = reference::trim(value.substr(start, end - start));
    start = end + 1;
    if (member.empty()) continue;
    std::size_t i = 0;
    while (i < member.size() && reference::tchar(member[i])) ++i;
    if (i == 0) continue;
    std::string coding(member.substr(0, i));
    for (char& c : coding) c = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
    std::string_view rest = reference::trim(member.substr(i));
    std::optional<int> q = 1000;
    if (!rest.empty()) {
      if (rest.front() != ';') continue;
      rest = reference::trim(rest.substr(1));
      if (rest.size() < 2 || (rest[0] != 'q' && rest[0] != 'Q') || rest[1] != '=') continue;
      q = ref_qvalue(rest.substr(2));
      if (!q) continue;
    }
    std::optional<int>* slot = nullptr;
    if (coding == "gzip" || coding == "x-gzip") slot = &w.gzip;
    if (coding == "br") slot = &w.br;
    if (coding == "zstd") slot = &w.zstd;
    if (coding == "identity") slot = &w.identity;
    if (coding == "*") slot = &w.star;
    if (slot != nullptr && !*slot) *slot = q;
  }
  return w;
}

// A coding named by the client weighs what it says; one not named weighs what
// "*" says, else nothing - except identity, acceptable unless excluded, and
// then below every coding the client did name.
constexpr int identity_by_default = 1;

int reference_weight(const reference_weights& w, content_coding c) {
  const std::optional<int>* own = &w.identity;
  if (c == content_coding::gzip) own = &w.gzip;
  if (c == content_coding::br) own = &w.br;
  if (c == content_coding::zstd) own = &w.zstd;
  if (*own) return **own;
  if (w.star) return *w.star;
  return c == content_coding::identity ? identity_by_default : 0;
}

// The server's choice: the client's highest weight above 0 among the
// offered codings, ties to the server's earlier preference; identity when
// the client weighs identity strictly higher, or accepts none of them.
stet::detail::negotiation reference_negotiate(const reference_weights& w, std::span<const content_coding> offered) {
  struct candidate {
    int weight;
    std::size_t rank;
    content_coding coding;
  };
  std::vector<candidate> acceptable;
  for (std::size_t i = 0; i < offered.size(); ++i) {
    if (offered[i] == content_coding::identity) continue;
    const int q = reference_weight(w, offered[i]);
    if (q > 0) acceptable.push_back({q, i, offered[i]});
  }
  std::stable_sort(acceptable.begin(), acceptable.end(),
                   [](const candidate& a, const candidate& b) { return a.weight > b.weight; });
  const int identity = reference_weight(w, content_coding::identity);
  if (!acceptable.empty() && acceptable.front().weight >= identity) return {acceptable.front().coding, true};
  return {content_coding::identity, identity > 0};
}

void check_against_reference(const stet::detail::accept_weights& w, std::string_view value) {
  const reference_weights r = reference_parse(value);
  const auto same = [](std::int16_t got, const std::optional<int>& want) { return want ? got == *want : got == -1; };
  require(same(w.gzip, r.gzip) && same(w.br, r.br) && same(w.zstd, r.zstd) && same(w.identity, r.identity) &&
              same(w.star, r.star),
          "the weights are the reference's", value);
  using c = content_coding;
  static const std::array<std::vector<content_coding>, 6> preferences = {{
      {c::br, c::zstd, c::gzip},
      {c::gzip},
      {c::zstd, c::gzip, c::br},
      {c::gzip, c::identity, c::br},
      {},
      {c::identity},
  }};
  for (const std::vector<content_coding>& offered : preferences) {
    require(stet::detail::negotiate(w, offered) == reference_negotiate(r, offered),
            "the coding chosen is the reference's", value);
  }
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
  check_against_reference(w, value);
  return 0;
}
