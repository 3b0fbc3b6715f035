#pragma once
// Which of the three formats stet renders its own error pages in (text, HTML,
// JSON) an Accept header prefers. One pass over the header, no allocation:
// every media range is compared against the three candidates as it is read,
// keeping for each the q of its most specific matching range (RFC 9110 12.5.1).

#include "http/qvalue.hpp"
#include "http/token.hpp"

#include <array>
#include <cstdint>
#include <string_view>

namespace stet::detail {

/// The formats of the pre-rendered error pages.
enum class error_format : std::uint8_t { text, html, json };
inline constexpr std::size_t error_format_count = 3;

/// A qvalue ("0", "0.5", "1.000") as thousandths; a malformed one counts as 1000
/// (RFC 9110 lets a recipient ignore what it cannot parse, and ignoring the
/// weight is kinder to the client than ignoring the range).
constexpr int parse_qvalue(std::string_view q) noexcept { return parse_qvalue_exact(q).value_or(1000); }

/// The weight (0..1000) a media range's parameters give it: its q parameter, or 1000.
constexpr int media_range_weight(std::string_view params) noexcept {
  while (!params.empty()) {
    const std::size_t semi = params.find(';');
    const std::string_view param = trim_ows(params.substr(0, semi));
    if (param.size() >= 2 && ascii_lower(param[0]) == 'q' && param[1] == '=') return parse_qvalue(param.substr(2));
    if (semi == std::string_view::npos) break;
    params.remove_prefix(semi + 1);
  }
  return 1000;
}

/// How specifically `range` ("type/subtype", wildcards allowed) names
/// `type`/`subtype`: 0 no match, 1 "*/*", 2 "type/*", 3 exact.
constexpr int media_range_match(std::string_view range, std::string_view type, std::string_view subtype) noexcept {
  const std::size_t slash = range.find('/');
  if (slash == std::string_view::npos) return 0;
  const std::string_view rt = range.substr(0, slash);
  const std::string_view rs = range.substr(slash + 1);
  if (rt == "*") return rs == "*" ? 1 : 0;
  if (!iequals(rt, type)) return 0;
  if (rs == "*") return 2;
  return iequals(rs, subtype) ? 3 : 0;
}

/// The error page format `accept` prefers: the highest q among text/plain,
/// text/html and application/json, ties going to text, then HTML, then JSON.
/// Text when the header is absent or accepts none of them (an error page is
/// sent anyway: RFC 9110 allows ignoring Accept rather than answering 406).
constexpr error_format preferred_error_format(std::string_view accept) noexcept {
  struct candidate {
    std::string_view type, subtype;
  };
  constexpr std::array<candidate, error_format_count> candidates = {
      {{"text", "plain"}, {"text", "html"}, {"application", "json"}}};
  std::array<int, error_format_count> specificity{};
  std::array<int, error_format_count> weight{};
  while (!accept.empty()) {
    const std::size_t comma = accept.find(',');
    const std::string_view element = accept.substr(0, comma);
    const std::size_t semi = element.find(';');
    const std::string_view range = trim_ows(element.substr(0, semi));
    if (!range.empty()) {
      const int w = semi == std::string_view::npos ? 1000 : media_range_weight(element.substr(semi + 1));
      for (std::size_t i = 0; i < candidates.size(); ++i) {
        const int s = media_range_match(range, candidates[i].type, candidates[i].subtype);
        if (s > specificity[i]) {
          specificity[i] = s;
          weight[i] = w;
        }
      }
    }
    if (comma == std::string_view::npos) break;
    accept.remove_prefix(comma + 1);
  }
  std::size_t best = 0;
  for (std::size_t i = 1; i < candidates.size(); ++i) {
    if (weight[i] > weight[best]) best = i;
  }
  return weight[best] > 0 ? static_cast<error_format>(best) : error_format::text;
}

}  // namespace stet::detail
