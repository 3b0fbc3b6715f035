// Target: the WebSocket upgrade request (RFC 6455 4.2.1) and the
// permessage-deflate offers in it (RFC 7692 5, 7), checked against reference
// readings written here from the RFCs. Input: byte 0 the request line and
// route (bit 0: GET or POST, bit 1: HTTP/1.1 or 1.0, bit 2: allowed origins
// configured, bit 3: an Origin required, bit 4: deflate enabled, bit 5:
// server_no_context_takeover, bit 6: client_no_context_takeover), byte 1 the
// route's window bits (low nibble: server, high: client; 8 + n % 8), then
// header fields, one per line, "name: value".
//
// Properties: check_upgrade_request() refuses for exactly the reason the
// reference finds first; the accept key is base64(SHA-1(key + GUID)) as
// OpenSSL's EVP computes it; the subprotocol and Origin decisions are the
// reference's; the 101 head is well formed; every permessage-deflate offer
// the parser accepts is valid per RFC 7692 with the reference's values (and
// every plain valid one is accepted); the agreement never widens a window
// the client limited, stays within 9-15, answers what it agreed, and its
// answer reads back to the same parameters.

#include "support/reference_text.hpp"
#include "support/require.hpp"

#include "http/token.hpp"
#include "websocket/deflate_offer.hpp"
#include "websocket/handshake.hpp"

#include <stet/headers.hpp>
#include <stet/method.hpp>

#include <openssl/evp.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace {

using stet::header_field;
using stet::detail::ws::deflate_offer;
using stet::detail::ws::handshake_error;
using stet::fuzz::require;
using stet::fuzz::reference::lower;
using stet::fuzz::reference::trim;

// RFC 9110 5.6.1 list elements, with quoted-strings (5.6.4) kept whole.
std::vector<std::string_view> elements(std::string_view value, char separator) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  bool quoted = false;
  for (std::size_t i = 0; i <= value.size(); ++i) {
    if (i == value.size() || (!quoted && value[i] == separator)) {
      out.push_back(trim(value.substr(start, i - start)));
      start = i + 1;
    } else if (quoted && value[i] == '\\') {
      ++i;
    } else if (value[i] == '"') {
      quoted = !quoted;
    }
  }
  return out;
}

std::vector<std::string_view> list_of(const std::vector<header_field>& fields, std::string_view name) {
  std::vector<std::string_view> out;
  for (const header_field& f : fields) {
    if (lower(f.name) != name) continue;
    for (std::string_view e : elements(f.value, ',')) {
      if (!e.empty()) out.push_back(e);
    }
  }
  return out;
}

bool lists(const std::vector<header_field>& fields, std::string_view name, std::string_view token) {
  const std::vector<std::string_view> l = list_of(fields, name);
  return std::any_of(l.begin(), l.end(), [&](std::string_view e) { return lower(e) == token; });
}

int base64_value(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

// RFC 6455 4.1: a nonce is 16 bytes, base64-encoded (RFC 4648 4: padded, and
// canonical, so the unused low bits of the last character are zero).
bool is_nonce(std::string_view key) {
  if (key.size() != 24 || key[22] != '=' || key[23] != '=') return false;
  for (std::size_t i = 0; i < 22; ++i) {
    if (base64_value(key[i]) < 0) return false;
  }
  return (base64_value(key[21]) & 15) == 0;
}

handshake_error reference_check(bool get, bool http11, const std::vector<header_field>& fields) {
  if (!get) return handshake_error::not_get;
  if (!http11) return handshake_error::not_http11;
  if (!lists(fields, "upgrade", "websocket") || !lists(fields, "connection", "upgrade")) {
    return handshake_error::no_upgrade;
  }
  std::size_t versions = 0;
  bool all_13 = true;
  std::vector<std::string_view> keys;
  for (const header_field& f : fields) {
    const std::string name = lower(f.name);
    if (name == "sec-websocket-version") {
      ++versions;
      all_13 = all_13 && f.value == "13";
    }
    if (name == "sec-websocket-key") keys.push_back(f.value);
  }
  if (versions == 0 || !all_13) return handshake_error::unsupported_version;
  if (keys.size() != 1 || !is_nonce(keys[0])) return handshake_error::bad_key;
  return handshake_error::none;
}

std::string reference_accept(std::string_view key) {
  const std::string text = std::string(key) + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  require(EVP_Digest(text.data(), text.size(), digest, &size, EVP_sha1(), nullptr) == 1, "EVP_Digest");
  unsigned char encoded[64];
  const int n = EVP_EncodeBlock(encoded, digest, static_cast<int>(size));
  return std::string(reinterpret_cast<const char*>(encoded), static_cast<std::size_t>(n));
}

// RFC 7692 7.1.2: a window-bits value is 8-15 without leading zeros; a
// quoted-string value, unquoted, must be the same.
std::optional<int> window_value(std::string_view v, bool& plain) {
  if (v.size() >= 2 && v.front() == '"' && v.back() == '"') {
    plain = false;
    std::string unquoted;
    for (std::size_t i = 1; i + 1 < v.size(); ++i) {
      if (v[i] == '\\' && i + 2 < v.size()) ++i;
      unquoted += v[i];
    }
    return window_value(unquoted, plain);
  }
  if (v == "8" || v == "9") return v[0] - '0';
  if (v.size() == 2 && v[0] == '1' && v[1] >= '0' && v[1] <= '5') return 10 + v[1] - '0';
  return std::nullopt;
}

// One element of Sec-WebSocket-Extensions as RFC 7692 reads it: nullopt when
// it is not permessage-deflate or must be declined. `plain`: no quoted value.
std::optional<deflate_offer> reference_offer(std::string_view element, bool& plain) {
  plain = true;
  const std::vector<std::string_view> parts = elements(element, ';');
  if (lower(parts[0]) != "permessage-deflate") return std::nullopt;
  deflate_offer o;
  std::array<bool, 4> seen{};
  for (std::size_t i = 1; i < parts.size(); ++i) {
    const std::string_view part = parts[i];
    const std::size_t eq = part.find('=');
    const std::string name = lower(trim(part.substr(0, eq)));
    const bool has_value = eq != std::string_view::npos;
    const std::string_view value = has_value ? trim(part.substr(eq + 1)) : std::string_view();
    int index = -1;
    if (name == "server_no_context_takeover") index = 0;
    if (name == "client_no_context_takeover") index = 1;
    if (name == "server_max_window_bits") index = 2;
    if (name == "client_max_window_bits") index = 3;
    if (index < 0 || seen[static_cast<std::size_t>(index)]) return std::nullopt;
    seen[static_cast<std::size_t>(index)] = true;
    if (index < 2) {
      if (has_value) return std::nullopt;
      (index == 0 ? o.server_no_context_takeover : o.client_no_context_takeover) = true;
      continue;
    }
    if (index == 3 && !has_value) {
      o.client_max_window_bits = true;
      continue;
    }
    const std::optional<int> bits = window_value(value, plain);
    if (!bits) return std::nullopt;
    if (index == 2) {
      o.server_max_window_bits = static_cast<std::uint8_t>(*bits);
    } else {
      o.client_max_window_bits = true;
      o.client_max_window_bits_value = static_cast<std::uint8_t>(*bits);
    }
  }
  return o;
}

bool same_offer(const deflate_offer& a, const deflate_offer& b) {
  return a.server_no_context_takeover == b.server_no_context_takeover &&
         a.client_no_context_takeover == b.client_no_context_takeover &&
         a.server_max_window_bits == b.server_max_window_bits && a.client_max_window_bits == b.client_max_window_bits &&
         a.client_max_window_bits_value == b.client_max_window_bits_value;
}

void check_agreement(const deflate_offer& offer, const stet::detail::ws::deflate_settings& s,
                     const stet::detail::ws::deflate_agreement& a, std::string_view input) {
  const stet::detail::ws::deflate_params& p = a.params;
  const auto clamp = [](int bits) { return std::clamp(bits, 9, 15); };
  require(p.server_max_window_bits >= 9 && p.server_max_window_bits <= 15, "our window is 9-15", input);
  require(p.server_max_window_bits <= clamp(s.server_max_window_bits), "our window is at most the route's", input);
  if (offer.server_max_window_bits != 0) {
    require(p.server_max_window_bits <= offer.server_max_window_bits, "our window never exceeds the offer's", input);
  }
  require(p.server_no_context_takeover == (offer.server_no_context_takeover || s.server_no_context_takeover),
          "server_no_context_takeover when offered or preferred", input);
  require(p.client_no_context_takeover == s.client_no_context_takeover, "client_no_context_takeover when preferred",
          input);
  if (!offer.client_max_window_bits) {
    require(p.client_max_window_bits == 15, "the client's window is its own without the parameter", input);
  } else if (offer.client_max_window_bits_value != 0) {
    require(p.client_max_window_bits <= offer.client_max_window_bits_value, "never more than the client offered",
            input);
  }
  // The answer, read back as an offer, says what was agreed.
  const std::string_view answer = a.response();
  require(stet::detail::is_field_value(answer), "the answer is a field value", answer);
  const std::optional<deflate_offer> back = stet::detail::ws::parse_deflate_offer(answer);
  require(back.has_value(), "the answer parses", answer);
  require(back->server_no_context_takeover == p.server_no_context_takeover &&
              back->client_no_context_takeover == p.client_no_context_takeover,
          "the answer names the agreed takeovers", answer);
  require((back->server_max_window_bits == 0 ? 15 : back->server_max_window_bits) == p.server_max_window_bits,
          "the answer names our window", answer);
  require(!back->client_max_window_bits || back->client_max_window_bits_value == p.client_max_window_bits,
          "the answer names the client's window", answer);
  require(!back->client_max_window_bits || offer.client_max_window_bits,
          "client_max_window_bits only answers an offer of it", answer);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  const unsigned setup = data[0];
  const std::string_view text(reinterpret_cast<const char*>(data) + 2, size - 2);
  std::vector<header_field> fields;
  for (std::string_view rest = text; !rest.empty();) {
    const std::size_t eol = rest.find('\n');
    const std::string_view line = rest.substr(0, eol);
    rest = eol == std::string_view::npos ? std::string_view() : rest.substr(eol + 1);
    const std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    // As the request parser hands them over: a token name, a trimmed field value.
    const std::string_view name = line.substr(0, colon);
    const std::string_view value = trim(line.substr(colon + 1));
    if (!stet::detail::is_token(name) || !stet::detail::is_field_value(value)) continue;
    fields.push_back({name, value});
  }
  const bool get = (setup & 1u) == 0;
  const bool http11 = (setup & 2u) == 0;

  const stet::detail::ws::upgrade_check check =
      stet::detail::ws::check_upgrade_request(get ? stet::method::get : stet::method::post, http11 ? 11 : 10, fields);
  require(check.error == reference_check(get, http11, fields), "the upgrade check refuses for the reference's reason",
          text);
  require(check.status() == stet::detail::ws::handshake_status(check.error), "status() answers the error", text);

  const std::string_view key = check.ok() ? check.key : std::string_view("dGhlIHNhbXBsZSBub25jZQ==");
  const stet::detail::ws::accept_key accept = stet::detail::ws::make_accept_key(key);
  require(std::string_view(accept.data(), accept.size()) == reference_accept(key),
          "Sec-WebSocket-Accept is base64(SHA-1(key + GUID))", key);

  static const std::array<std::string_view, 3> supported = {"chat", "v2.json", "superchat"};
  const std::string_view protocol = stet::detail::ws::select_subprotocol(fields, supported);
  std::string_view expected_protocol;
  for (std::string_view offered : list_of(fields, "sec-websocket-protocol")) {
    if (std::find(supported.begin(), supported.end(), offered) != supported.end()) {
      expected_protocol = offered;
      break;
    }
  }
  require(protocol == expected_protocol, "the client's first supported subprotocol", text);

  static const std::array<std::string_view, 2> origins = {"https://example.com", "null"};
  const bool with_origins = (setup & 4u) != 0;
  const bool require_origin = (setup & 8u) != 0;
  const handshake_error origin = stet::detail::ws::check_origin(
      fields, with_origins ? std::span<const std::string_view>(origins) : std::span<const std::string_view>(),
      require_origin);
  handshake_error expected_origin = handshake_error::none;
  if (with_origins) {
    const auto o =
        std::find_if(fields.begin(), fields.end(), [](const header_field& f) { return lower(f.name) == "origin"; });
    if (o == fields.end()) {
      if (require_origin) expected_origin = handshake_error::origin_refused;
    } else if (lower(o->value) != origins[0] && lower(o->value) != origins[1]) {
      expected_origin = handshake_error::origin_refused;
    }
  }
  require(origin == expected_origin, "the Origin check is the reference's", text);

  stet::detail::ws::deflate_settings settings;
  settings.enabled = (setup & 16u) != 0;
  settings.server_no_context_takeover = (setup & 32u) != 0;
  settings.client_no_context_takeover = (setup & 64u) != 0;
  settings.server_max_window_bits = static_cast<std::uint8_t>(8 + (data[1] & 7u));
  settings.client_max_window_bits = static_cast<std::uint8_t>(8 + ((data[1] >> 4) & 7u));

  std::optional<stet::detail::ws::deflate_agreement> expected_agreement;
  for (std::string_view element : list_of(fields, "sec-websocket-extensions")) {
    const std::optional<deflate_offer> parsed = stet::detail::ws::parse_deflate_offer(element);
    bool plain = true;
    const std::optional<deflate_offer> reference = reference_offer(element, plain);
    if (parsed) {
      require(reference.has_value(), "an accepted offer is valid per RFC 7692", element);
      require(same_offer(*parsed, *reference), "an offer reads as RFC 7692 says", element);
    } else {
      require(!reference || !plain, "a valid offer is not declined", element);
    }
    if (!parsed) continue;
    const std::optional<stet::detail::ws::deflate_agreement> a =
        stet::detail::ws::accept_deflate_offer(*parsed, settings);
    if (parsed->server_max_window_bits == 8) {
      require(!a.has_value(), "server_max_window_bits=8 is declined (zlib has no 256-byte window)", element);
    } else {
      require(a.has_value(), "every other valid offer is accepted", element);
      check_agreement(*parsed, settings, *a, element);
    }
    if (settings.enabled && !expected_agreement && a) expected_agreement = a;
  }
  const std::optional<stet::detail::ws::deflate_agreement> agreed =
      stet::detail::ws::negotiate_deflate(fields, settings);
  require(agreed.has_value() == expected_agreement.has_value(), "the first acceptable offer is agreed", text);
  if (agreed)
    require(agreed->response() == expected_agreement->response(), "the first acceptable offer is agreed", text);

  if (check.ok()) {
    const std::string_view extensions = agreed ? agreed->response() : std::string_view();
    std::array<char, 512> head{};
    const std::size_t n = stet::detail::ws::write_switching_protocols(head, accept, protocol, extensions);
    require(n == stet::detail::ws::switching_protocols_size(protocol, extensions), "the 101 head has its size", text);
    const std::string_view h(head.data(), n);
    require(h.starts_with("HTTP/1.1 101 Switching Protocols\r\n") && h.ends_with("\r\n\r\n") &&
                h.find("Sec-WebSocket-Accept: " + reference_accept(key) + "\r\n") != std::string_view::npos,
            "the 101 head is well formed", h);
  }
  return 0;
}
