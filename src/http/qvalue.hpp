#pragma once
// RFC 9110 section 12.4.2 qvalues, shared by the Accept (error page format) and
// Accept-Encoding (content coding) negotiations.

#include <optional>
#include <string_view>

namespace stet::detail {

/// A qvalue ("0", "0.5", "1.000") as thousandths 0..1000; nullopt when it does
/// not follow the grammar (more than three decimals, above 1, not a number).
constexpr std::optional<int> parse_qvalue_exact(std::string_view q) noexcept {
  if (q.empty() || (q[0] != '0' && q[0] != '1')) return std::nullopt;
  int value = (q[0] - '0') * 1000;
  if (q.size() == 1) return value;
  if (q[1] != '.' || q.size() > 5) return std::nullopt;
  int scale = 100;
  for (char c : q.substr(2)) {
    if (c < '0' || c > '9') return std::nullopt;
    value += (c - '0') * scale;
    scale /= 10;
  }
  if (value > 1000) return std::nullopt;
  return value;
}

}  // namespace stet::detail
