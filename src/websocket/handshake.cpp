#include "websocket/handshake.hpp"

#include "http/token.hpp"
#include "websocket/header_list.hpp"

// SHA1_Init/Update/Final are deprecated in OpenSSL 3 in favour of EVP, but the
// EVP path (and the one-shot SHA1(), which OpenSSL 3 routes through it) fetches
// the algorithm and allocates a context on every call; the low-level functions
// hash on a stack SHA_CTX with no allocation. They remain in OpenSSL 3.x.
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/sha.h>

#include <algorithm>
#include <cstring>

namespace stet::detail::ws {

namespace {

constexpr std::string_view key_guid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
constexpr std::string_view base64_alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

constexpr bool is_base64_char(char c) noexcept { return base64_alphabet.find(c) != std::string_view::npos; }

// base64 of 16 bytes, canonically: 21 characters of 6 bits, one carrying the
// last 2 bits (its low 4 bits zero: A, Q, g or w), and "==".
constexpr bool is_key_nonce(std::string_view key) noexcept {
  if (key.size() != 24 || key.substr(22) != "==") return false;
  for (std::size_t i = 0; i < 21; ++i) {
    if (!is_base64_char(key[i])) return false;
  }
  const char last = key[21];
  return last == 'A' || last == 'Q' || last == 'g' || last == 'w';
}

// Standard base64 (with padding) of the 20-byte digest: 28 characters.
void encode_digest(const unsigned char (&digest)[SHA_DIGEST_LENGTH], accept_key& out) noexcept {
  std::size_t o = 0;
  std::size_t i = 0;
  for (; i + 3 <= SHA_DIGEST_LENGTH; i += 3) {
    const std::uint32_t v = (std::uint32_t{digest[i]} << 16) | (std::uint32_t{digest[i + 1]} << 8) | digest[i + 2];
    for (int shift = 18; shift >= 0; shift -= 6) out[o++] = base64_alphabet[(v >> shift) & 63];
  }
  const std::uint32_t v = (std::uint32_t{digest[i]} << 16) | (std::uint32_t{digest[i + 1]} << 8);  // 2 left over
  out[o++] = base64_alphabet[(v >> 18) & 63];
  out[o++] = base64_alphabet[(v >> 12) & 63];
  out[o++] = base64_alphabet[(v >> 6) & 63];
  out[o] = '=';
}

struct key_fields {
  std::string_view key;
  std::size_t keys = 0;
  bool version_13 = false;
  bool other_version = false;
};

key_fields find_key_fields(std::span<const header_field> fields) noexcept {
  key_fields out;
  for (const header_field& f : fields) {
    if (iequals(f.name, "sec-websocket-key")) {
      out.key = f.value;
      ++out.keys;
    } else if (iequals(f.name, "sec-websocket-version")) {
      (f.value == "13" ? out.version_13 : out.other_version) = true;
    }
  }
  return out;
}

char* append(char* p, std::string_view s) noexcept {
  std::memcpy(p, s.data(), s.size());
  return p + s.size();
}

}  // namespace

stet::status handshake_status(handshake_error e) noexcept {
  switch (e) {
    case handshake_error::none: return stet::status::switching_protocols;
    case handshake_error::no_upgrade:
    case handshake_error::unsupported_version: return stet::status::upgrade_required;
    case handshake_error::origin_refused: return stet::status::forbidden;
    case handshake_error::not_get:
    case handshake_error::not_http11:
    case handshake_error::bad_key: break;
  }
  return stet::status::bad_request;
}

upgrade_check check_upgrade_request(stet::method method, unsigned version,
                                    std::span<const header_field> fields) noexcept {
  upgrade_check out;
  if (method != stet::method::get) {
    out.error = handshake_error::not_get;
  } else if (version < 11) {
    out.error = handshake_error::not_http11;
  } else if (!lists_token(fields, "upgrade", "websocket") || !lists_token(fields, "connection", "upgrade")) {
    out.error = handshake_error::no_upgrade;
  } else {
    const key_fields k = find_key_fields(fields);
    if (!k.version_13 || k.other_version) {
      out.error = handshake_error::unsupported_version;
    } else if (k.keys != 1 || !is_key_nonce(k.key)) {
      out.error = handshake_error::bad_key;
    } else {
      out.key = k.key;
    }
  }
  return out;
}

accept_key make_accept_key(std::string_view key) noexcept {
  unsigned char digest[SHA_DIGEST_LENGTH];
  SHA_CTX ctx;
  SHA1_Init(&ctx);
  SHA1_Update(&ctx, key.data(), key.size());
  SHA1_Update(&ctx, key_guid.data(), key_guid.size());
  SHA1_Final(digest, &ctx);
  accept_key out{};
  encode_digest(digest, out);
  return out;
}

std::string_view select_subprotocol(std::span<const header_field> fields,
                                    std::span<const std::string_view> supported) noexcept {
  std::string_view chosen;
  any_list_element(fields, "sec-websocket-protocol", [&](std::string_view offered) {
    const auto it = std::find(supported.begin(), supported.end(), offered);
    if (it == supported.end()) return false;
    chosen = *it;
    return true;
  });
  return chosen;
}

handshake_error check_origin(std::span<const header_field> fields, std::span<const std::string_view> allowed,
                             bool require_origin) noexcept {
  if (allowed.empty()) return handshake_error::none;
  const auto origin =
      std::find_if(fields.begin(), fields.end(), [](const header_field& f) { return iequals(f.name, "origin"); });
  if (origin == fields.end()) return require_origin ? handshake_error::origin_refused : handshake_error::none;
  const bool listed =
      std::any_of(allowed.begin(), allowed.end(), [&](std::string_view a) { return iequals(a, origin->value); });
  return listed ? handshake_error::none : handshake_error::origin_refused;
}

std::size_t write_switching_protocols(std::span<char> out, const accept_key& accept, std::string_view protocol,
                                      std::string_view extensions) noexcept {
  const std::size_t size = switching_protocols_size(protocol, extensions);
  if (out.size() < size || !is_field_value(protocol) || !is_field_value(extensions)) return 0;
  char* p = out.data();
  p = append(p, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n");
  p = append(p, "Sec-WebSocket-Accept: ");
  p = append(p, {accept.data(), accept.size()});
  p = append(p, "\r\n");
  if (!protocol.empty()) {
    p = append(p, "Sec-WebSocket-Protocol: ");
    p = append(p, protocol);
    p = append(p, "\r\n");
  }
  if (!extensions.empty()) {
    p = append(p, "Sec-WebSocket-Extensions: ");
    p = append(p, extensions);
    p = append(p, "\r\n");
  }
  p = append(p, "\r\n");
  return static_cast<std::size_t>(p - out.data());
}

}  // namespace stet::detail::ws
