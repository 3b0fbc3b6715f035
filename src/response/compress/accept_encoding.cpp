#include "response/compress/accept_encoding.hpp"

#include "http/qvalue.hpp"
#include "http/token.hpp"

#include <optional>

namespace stet::detail {
namespace {

// The member's weight: 1000 without parameters, its q with exactly one q
// parameter, nullopt when the parameters do not follow the grammar.
std::optional<int> member_weight(std::string_view params) noexcept {
  if (params.empty()) return 1000;
  params = trim_ows(params.substr(1));  // the ';'
  if (params.size() < 2 || ascii_lower(params[0]) != 'q' || params[1] != '=') return std::nullopt;
  return parse_qvalue_exact(params.substr(2));
}

std::int16_t* slot_for(accept_weights& w, std::string_view coding) noexcept {
  if (iequals(coding, "gzip") || iequals(coding, "x-gzip")) return &w.gzip;
  if (iequals(coding, "br")) return &w.br;
  if (iequals(coding, "zstd")) return &w.zstd;
  if (iequals(coding, "identity")) return &w.identity;
  if (coding == "*") return &w.star;
  return nullptr;
}

void weigh_member(std::string_view member, accept_weights& w) noexcept {
  const std::size_t semi = member.find(';');
  const std::string_view coding = trim_ows(member.substr(0, semi));
  if (coding != "*" && !is_token(coding)) return;
  const std::optional<int> q = member_weight(semi == std::string_view::npos ? std::string_view() : member.substr(semi));
  if (!q) return;
  std::int16_t* slot = slot_for(w, coding);
  if (slot != nullptr && *slot < 0) *slot = static_cast<std::int16_t>(*q);
}

}  // namespace

accept_weights parse_accept_encoding(std::string_view value) noexcept {
  accept_weights w;
  while (!value.empty()) {
    const std::size_t comma = value.find(',');
    weigh_member(value.substr(0, comma), w);
    if (comma == std::string_view::npos) break;
    value.remove_prefix(comma + 1);
  }
  return w;
}

int weight_of(const accept_weights& w, content_coding c) noexcept {
  std::int16_t own = -1;
  switch (c) {
    case content_coding::gzip: own = w.gzip; break;
    case content_coding::br: own = w.br; break;
    case content_coding::zstd: own = w.zstd; break;
    case content_coding::identity: own = w.identity; break;
  }
  if (own >= 0) return own;
  if (w.star >= 0) return w.star;
  // Identity is acceptable unless excluded, but a client that lists only
  // "gzip;q=0.5" still prefers gzip: unnamed, identity ranks below every coding.
  return c == content_coding::identity ? 1 : 0;
}

negotiation negotiate(const accept_weights& w, std::span<const content_coding> offered) noexcept {
  content_coding best = content_coding::identity;
  int best_weight = 0;
  for (content_coding c : offered) {
    if (c == content_coding::identity) continue;
    const int q = weight_of(w, c);
    if (q > best_weight) {
      best = c;
      best_weight = q;
    }
  }
  const int identity_weight = weight_of(w, content_coding::identity);
  // A tie between identity and a coding goes to the coding: the client weighs
  // both alike, and the coded body is smaller.
  if (best_weight > 0 && best_weight >= identity_weight) return {best, true};
  return {content_coding::identity, identity_weight > 0};
}

}  // namespace stet::detail
