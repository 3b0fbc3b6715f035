#include "static/encoding.hpp"

#include "http/token.hpp"

namespace stet::detail {
namespace {

// q-values in thousandths ("1", "0.5", "0.005"); -1 when malformed, which
// makes the member count as absent.
int parse_qvalue(std::string_view s) noexcept {
  if (s.empty() || (s[0] != '0' && s[0] != '1')) return -1;
  int value = (s[0] - '0') * 1000;
  if (s.size() == 1) return value;
  if (s[1] != '.' || s.size() > 5) return -1;
  int scale = 100;
  for (char c : s.substr(2)) {
    if (c < '0' || c > '9') return -1;
    value += (c - '0') * scale;
    scale /= 10;
  }
  return value > 1000 ? -1 : value;
}

struct weights {
  int br = -1;  // -1: not mentioned
  int gzip = -1;
  int star = -1;
};

void weigh(std::string_view member, weights& w) noexcept {
  const std::size_t semi = member.find(';');
  const std::string_view coding = trim_ows(member.substr(0, semi));
  int q = 1000;
  if (semi != std::string_view::npos) {
    std::string_view param = trim_ows(member.substr(semi + 1));
    if (param.size() < 2 || ascii_lower(param[0]) != 'q' || param[1] != '=') return;
    q = parse_qvalue(trim_ows(param.substr(2)));
    if (q < 0) return;
  }
  if (iequals(coding, "br")) {
    w.br = q;
  } else if (iequals(coding, "gzip") || iequals(coding, "x-gzip")) {
    w.gzip = q;
  } else if (coding == "*") {
    w.star = q;
  }
}

}  // namespace

sibling_coding choose_coding(std::string_view accept_encoding, bool have_br, bool have_gzip) noexcept {
  if (!have_br && !have_gzip) return sibling_coding::identity;
  weights w;
  while (!accept_encoding.empty()) {
    const std::size_t comma = accept_encoding.find(',');
    weigh(accept_encoding.substr(0, comma), w);
    if (comma == std::string_view::npos) break;
    accept_encoding.remove_prefix(comma + 1);
  }
  const int br = !have_br ? 0 : w.br >= 0 ? w.br : (w.star >= 0 ? w.star : 0);
  const int gzip = !have_gzip ? 0 : w.gzip >= 0 ? w.gzip : (w.star >= 0 ? w.star : 0);
  if (br == 0 && gzip == 0) return sibling_coding::identity;
  return br >= gzip ? sibling_coding::br : sibling_coding::gzip;
}

}  // namespace stet::detail
