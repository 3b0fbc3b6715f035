// Target 7: the client behind trusted proxies (Forwarded, X-Forwarded-*). The
// input's first byte picks the peer; the rest is header lines separated by
// '\n', each line's first byte naming its field (F: Forwarded, X:
// X-Forwarded-For, P: X-Forwarded-Proto, H: X-Forwarded-Host, else another
// field) and the rest its value. The trust list is fixed. Properties:
//   - an untrusted peer's request is answered from the connection alone;
//   - the address, scheme and host are the connection's, views into the
//     field values, or (an IP) the canonical text of the address returned;
//   - a hidden client is an identifier of RFC 7239 6 taken from Forwarded;
//   - the scheme is a URI scheme, the host a valid Host;
//   - the answer does not depend on where the fields' bytes lie (a copy
//     resolves to the same text);
//   - where every X-Forwarded-For entry is a plain IP literal and no Forwarded
//     is sent, the client is the right-most untrusted entry (all trusted: the
//     left-most), as a plain walk from the right finds it.

#include "http/host_syntax.hpp"
#include "http/token.hpp"
#include "request/forwarded.hpp"
#include "support/require.hpp"

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace {

using stet::detail::client_origin;
using stet::detail::origin_source;
using stet::fuzz::is_view_into;
using stet::fuzz::require;

const stet::detail::proxy_trust& trust() {
  static const stet::detail::proxy_trust t =
      stet::detail::proxy_trust::compile(std::vector<std::string>{"10.0.0.0/8", "2001:db8:aaaa::/48", "unix"}).trust;
  return t;
}

stet::endpoint pick_peer(std::uint8_t selector) {
  switch (selector % 5) {
    case 0: return stet::endpoint::parse("10.0.0.1", 1234);
    case 1: return stet::endpoint::parse("2001:db8:aaaa::1", 1234);
    case 2: return stet::endpoint::unix_socket();
    case 3: return stet::endpoint::parse("203.0.113.9", 1234);
    default: return stet::endpoint::parse("2001:db8:bbbb::1", 1234);
  }
}

std::string_view field_name(char selector) {
  switch (selector) {
    case 'F': return "Forwarded";
    case 'X': return "X-Forwarded-For";
    case 'P': return "X-Forwarded-Proto";
    case 'H': return "X-Forwarded-Host";
    default: return "X-Other";
  }
}

std::vector<stet::header_field> split_fields(std::string_view text) {
  std::vector<stet::header_field> fields;
  while (!text.empty()) {
    const std::size_t eol = text.find('\n');
    const std::string_view line = text.substr(0, eol);
    text = eol == std::string_view::npos ? std::string_view() : text.substr(eol + 1);
    if (!line.empty()) fields.push_back({field_name(line.front()), line.substr(1)});
  }
  return fields;
}

bool inside_a_value(std::string_view part, const std::vector<stet::header_field>& fields) {
  return std::any_of(fields.begin(), fields.end(),
                     [&](const stet::header_field& f) { return is_view_into(part, f.value); });
}

bool is_hidden_identifier(std::string_view s) {
  if (stet::detail::iequals(s, "unknown")) return true;
  return s.size() >= 2 && s.front() == '_' && std::all_of(s.begin(), s.end(), [](char c) {
           return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '.' || c == '_' || c == '-';
         });
}

bool is_scheme(std::string_view s) {
  return !s.empty() && std::isalpha(static_cast<unsigned char>(s.front())) != 0 &&
         std::all_of(s.begin(), s.end(), [](char c) {
           return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '+' || c == '-' || c == '.';
         });
}

void check_shape(const client_origin& o, const std::vector<stet::header_field>& fields, std::string_view input) {
  require(o.scheme() == "http" || inside_a_value(o.scheme(), fields) || o.scheme() == "https",
          "the scheme is the connection's, a literal or a view into a field", input);
  require(is_scheme(o.scheme()), "the scheme is a URI scheme", input);
  require(o.host() == "origin.example" ||
              (inside_a_value(o.host(), fields) && !o.host().empty() && stet::detail::valid_host(o.host())),
          "the host is the connection's, or a valid host inside a field", input);
  if (o.address().is_ip()) {
    const stet::endpoint reparsed = stet::endpoint::parse(o.address_text(), o.address().port());
    require(reparsed == o.address(), "an IP's text is the address returned", input);
  } else if (o.source() != origin_source::peer) {
    require(inside_a_value(o.address_text(), fields) || o.address_text() == "unknown" ||
                (o.address().kind() == stet::endpoint::family::unix_socket && o.address_text() == "unix"),
            "a hidden client's text comes from a field", input);
    require(o.address().kind() == stet::endpoint::family::unix_socket || is_hidden_identifier(o.address_text()),
            "a hidden client is an RFC 7239 identifier", input);
  }
}

// A plain walk of X-Forwarded-For from the right, for lists of plain IP literals only.
std::optional<stet::endpoint> plain_walk(const std::vector<stet::header_field>& fields) {
  std::vector<stet::endpoint> chain;
  for (const stet::header_field& f : fields) {
    if (f.name == "Forwarded") return std::nullopt;
    if (f.name != "X-Forwarded-For") continue;
    std::string_view list = f.value;
    while (!list.empty()) {
      const std::size_t comma = list.find(',');
      const std::string_view entry = stet::detail::trim_ows(list.substr(0, comma));
      list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
      if (entry.empty()) continue;
      // Only what is plainly an IP literal (endpoint::parse() stops reading at a NUL).
      if (entry.find_first_not_of("0123456789abcdefABCDEF:.") != std::string_view::npos) return std::nullopt;
      const stet::endpoint e = stet::endpoint::parse(entry);
      if (!e.is_ip()) return std::nullopt;
      chain.push_back(e);
    }
  }
  if (chain.empty()) return std::nullopt;
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
    if (!trust().trusts(*it)) return *it;
  }
  return chain.front();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const stet::endpoint peer = pick_peer(data[0]);
  const std::vector<stet::header_field> fields = split_fields(input.substr(1));
  const stet::detail::origin_input in{fields, peer, "http", "origin.example"};
  const client_origin o = stet::detail::resolve_client_origin(in, trust());
  check_shape(o, fields, input);

  if (!trust().trusts(peer)) {
    require(o.source() == origin_source::peer && o.address() == peer && o.scheme() == "http" &&
                o.host() == "origin.example",
            "an untrusted peer is answered from the connection", input);
  }
  if (o.source() == origin_source::peer) {
    require(o.address() == peer && o.scheme() == "http" && o.host() == "origin.example",
            "source peer means the connection's values", input);
  }
  const client_origin nobody = stet::detail::resolve_client_origin(in, stet::detail::proxy_trust());
  require(nobody.source() == origin_source::peer && nobody.address() == peer, "an empty list trusts nobody", input);

  // The same bytes elsewhere: the same answer, with views into the copy.
  const std::string copy(input);
  const std::vector<stet::header_field> copied = split_fields(std::string_view(copy).substr(1));
  const client_origin again = stet::detail::resolve_client_origin({copied, peer, "http", "origin.example"}, trust());
  check_shape(again, copied, input);
  require(again.address_text() == o.address_text() && again.scheme() == o.scheme() && again.host() == o.host() &&
              again.address() == o.address() && again.source() == o.source(),
          "the answer depends on the bytes, not where they lie", input);

  if (trust().trusts(peer)) {
    if (const std::optional<stet::endpoint> expected = plain_walk(fields)) {
      require(o.source() == origin_source::x_forwarded && o.address() == *expected,
              "the client is the right-most untrusted X-Forwarded-For entry", input);
    }
  }
  return 0;
}
