#include "websocket/deflate_offer.hpp"

#include "http/token.hpp"
#include "websocket/header_list.hpp"

#include <algorithm>
#include <cstring>

namespace stet::detail::ws {

namespace {

constexpr std::string_view extension_name = "permessage-deflate";
constexpr std::uint8_t min_window_bits = 9;  // zlib's raw deflate refuses 8
constexpr std::uint8_t max_window_bits = 15;

// RFC 7692 7.1.2.1's ABNF: %x38-39 / "1" %x30-35, i.e. 8-15 without leading
// zeros; a quoted-string value must hold the same once unquoted.
std::uint8_t window_bits(std::string_view value) noexcept {
  if (value.size() >= 2 && value.front() == '"' && value.back() == '"') value = value.substr(1, value.size() - 2);
  if (value.size() == 1 && (value[0] == '8' || value[0] == '9')) return static_cast<std::uint8_t>(value[0] - '0');
  if (value.size() == 2 && value[0] == '1' && value[1] >= '0' && value[1] <= '5') {
    return static_cast<std::uint8_t>(10 + value[1] - '0');
  }
  return 0;
}

struct param {
  std::string_view name;
  std::string_view value;
  bool has_value = false;
};

param split_param(std::string_view text) noexcept {
  param p;
  const std::size_t eq = text.find('=');
  p.name = trim_ows(text.substr(0, eq));
  if (eq != std::string_view::npos) {
    p.value = trim_ows(text.substr(eq + 1));
    p.has_value = true;
  }
  return p;
}

// Applies one parameter to `offer`; false when RFC 7692 7 says to decline.
bool apply(const param& p, deflate_offer& offer, unsigned& seen) noexcept {
  constexpr std::array<std::string_view, 4> names = {"server_no_context_takeover", "client_no_context_takeover",
                                                     "server_max_window_bits", "client_max_window_bits"};
  const auto it = std::find_if(names.begin(), names.end(), [&](std::string_view n) { return iequals(n, p.name); });
  if (it == names.end()) return false;
  const auto index = static_cast<unsigned>(it - names.begin());
  if ((seen & (1u << index)) != 0) return false;
  seen |= 1u << index;
  switch (index) {
    case 0: offer.server_no_context_takeover = true; return !p.has_value;
    case 1: offer.client_no_context_takeover = true; return !p.has_value;
    case 2: offer.server_max_window_bits = window_bits(p.value); return offer.server_max_window_bits != 0;
    default:
      offer.client_max_window_bits = true;
      if (!p.has_value) return true;
      offer.client_max_window_bits_value = window_bits(p.value);
      return offer.client_max_window_bits_value != 0;
  }
}

std::uint8_t clamp_bits(std::uint8_t bits) noexcept { return std::clamp(bits, min_window_bits, max_window_bits); }

// Appends "; name" or "; name=bits" to the agreement's text (128 bytes hold
// the longest answer: all four parameters).
void add_param(deflate_agreement& a, std::string_view name, std::uint8_t bits = 0) noexcept {
  char* p = a.text.data() + a.text_size;
  std::memcpy(p, "; ", 2);
  std::memcpy(p + 2, name.data(), name.size());
  p += 2 + name.size();
  if (bits != 0) {
    *p++ = '=';
    if (bits >= 10) *p++ = '1';
    *p++ = static_cast<char>('0' + bits % 10);
  }
  a.text_size = static_cast<std::uint8_t>(p - a.text.data());
}

}  // namespace

std::optional<deflate_offer> parse_deflate_offer(std::string_view element) noexcept {
  element = trim_ows(element);
  if (!element.empty() && element.back() == ';') return std::nullopt;  // a parameter left out
  std::string_view rest = element;
  if (!iequals(take_element(rest, ';'), extension_name)) return std::nullopt;
  deflate_offer offer;
  unsigned seen = 0;
  while (!rest.empty()) {
    const std::string_view text = take_element(rest, ';');
    if (text.empty() || !apply(split_param(text), offer, seen)) return std::nullopt;
  }
  return offer;
}

std::optional<deflate_agreement> accept_deflate_offer(const deflate_offer& offer,
                                                      const deflate_settings& settings) noexcept {
  // RFC 7692 7.1.2.1: the server's window may only shrink from the offer's,
  // and zlib cannot go below 9.
  if (offer.server_max_window_bits != 0 && offer.server_max_window_bits < min_window_bits) return std::nullopt;
  deflate_agreement a;
  deflate_params& p = a.params;
  p.server_no_context_takeover = offer.server_no_context_takeover || settings.server_no_context_takeover;
  p.client_no_context_takeover = settings.client_no_context_takeover;
  p.server_max_window_bits = clamp_bits(settings.server_max_window_bits);
  if (offer.server_max_window_bits != 0)
    p.server_max_window_bits = std::min(p.server_max_window_bits, offer.server_max_window_bits);
  // 7.1.2.2: without the parameter in the offer the client's window is its own
  // business (up to 15) and the answer must not name it.
  p.client_max_window_bits = max_window_bits;
  if (offer.client_max_window_bits) {
    p.client_max_window_bits = clamp_bits(settings.client_max_window_bits);
    // An offered 8 is answered as 8 (never more than offered); the
    // decompressor still uses 9, which reads a stream made with 8 too.
    if (offer.client_max_window_bits_value != 0) {
      p.client_max_window_bits = std::min(p.client_max_window_bits, offer.client_max_window_bits_value);
    }
  }

  std::memcpy(a.text.data(), extension_name.data(), extension_name.size());
  a.text_size = static_cast<std::uint8_t>(extension_name.size());
  if (p.server_no_context_takeover) add_param(a, "server_no_context_takeover");
  if (p.client_no_context_takeover) add_param(a, "client_no_context_takeover");
  if (offer.server_max_window_bits != 0 || p.server_max_window_bits < max_window_bits) {
    add_param(a, "server_max_window_bits", p.server_max_window_bits);
  }
  if (offer.client_max_window_bits && p.client_max_window_bits < max_window_bits) {
    add_param(a, "client_max_window_bits", p.client_max_window_bits);
  }
  return a;
}

std::optional<deflate_agreement> negotiate_deflate(std::span<const header_field> fields,
                                                   const deflate_settings& settings) noexcept {
  if (!settings.enabled) return std::nullopt;
  std::optional<deflate_agreement> agreed;
  any_list_element(fields, "sec-websocket-extensions", [&](std::string_view element) {
    const std::optional<deflate_offer> offer = parse_deflate_offer(element);
    if (offer) agreed = accept_deflate_offer(*offer, settings);
    return agreed.has_value();
  });
  return agreed;
}

}  // namespace stet::detail::ws
