// Target: the CORS policy (middleware/cors_policy.cpp): the origin table and
// the preflight's method and request-header lists, against a reference
// written here from the Fetch standard and cors_options' documentation.
// Input: byte 0 the options (bit 0 credentials, bit 1 "*" among the allowed
// headers, bit 2 "*" among the origins, bits 3-5 PUT, DELETE, PATCH allowed),
// then lines: the configured origins (comma-separated), the allowed header
// names (comma-separated), the request's Origin, its
// Access-Control-Request-Headers, its Access-Control-Request-Method.
//
// Properties: options the constructor accepts give a policy whose every
// decision is the reference's: decide() (exact origins ASCII
// case-insensitively, "https://*.example.com" patterns over one or more
// labels, "*" with and without credentials), allows_headers() (every
// non-empty list item a token that is allowed), allows_method(); the values
// it renders once are field values.

#include "support/reference_text.hpp"
#include "support/require.hpp"

#include "http/token.hpp"
#include "middleware/cors_policy.hpp"

#include <stet/cors.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace {

using stet::detail::origin_verdict;
using stet::fuzz::require;
using stet::fuzz::reference::lower;
using stet::fuzz::reference::tchar;
using stet::fuzz::reference::trim;

std::vector<std::string_view> split(std::string_view s, char c) {
  std::vector<std::string_view> out;
  for (std::size_t start = 0;;) {
    const std::size_t at = s.find(c, start);
    out.push_back(s.substr(start, at == std::string_view::npos ? std::string_view::npos : at - start));
    if (at == std::string_view::npos) return out;
    start = at + 1;
  }
}

bool token(std::string_view s) { return !s.empty() && std::all_of(s.begin(), s.end(), tchar); }

// One or more non-empty labels of letters, digits and '-', separated by single dots.
bool labels(std::string_view s) {
  if (s.empty()) return false;
  for (std::string_view label : split(s, '.')) {
    if (label.empty()) return false;
    for (const char c : label) {
      const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-';
      if (!ok) return false;
    }
  }
  return true;
}

origin_verdict reference_decide(const std::vector<std::string>& origins, bool credentials, std::string_view origin) {
  if (origin.empty()) return origin_verdict::refused;
  const bool any = std::find(origins.begin(), origins.end(), "*") != origins.end();
  if (any && !credentials) return origin_verdict::any;
  const bool has_upper = std::any_of(origin.begin(), origin.end(), [](char c) { return c >= 'A' && c <= 'Z'; });
  for (const std::string& o : origins) {
    if (o == "*") continue;
    const std::size_t star = o.find("://*.");
    if (star == std::string::npos) {
      // Exact, ASCII case-insensitively (a long Origin is only folded up to max_origin_bytes).
      if (lower(o) == origin ||
          (lower(o) == lower(origin) && (!has_upper || origin.size() <= stet::detail::max_origin_bytes))) {
        return origin_verdict::echo;
      }
      continue;
    }
    const std::string scheme = lower(o.substr(0, star + 3));  // "https://"
    const std::string suffix = lower(o.substr(star + 4));     // ".example.com:8443"
    if (origin.size() <= scheme.size() + suffix.size()) continue;
    const std::string l = lower(origin);
    if (!l.starts_with(scheme) || !l.ends_with(suffix)) continue;
    if (labels(origin.substr(scheme.size(), origin.size() - scheme.size() - suffix.size())))
      return origin_verdict::echo;
  }
  if (any && origin != "null" && origin.find('*') == std::string_view::npos &&
      stet::cors_origin_error(origin).empty()) {
    return origin_verdict::echo;
  }
  return origin_verdict::refused;
}

bool reference_headers(const std::vector<std::string>& allowed, std::string_view requested) {
  const bool any = std::find(allowed.begin(), allowed.end(), "*") != allowed.end();
  for (std::string_view item : split(requested, ',')) {
    item = trim(item);
    if (item.empty()) continue;
    if (!token(item)) return false;
    if (any) continue;
    if (std::none_of(allowed.begin(), allowed.end(), [&](const std::string& a) { return lower(a) == lower(item); })) {
      return false;
    }
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const unsigned setup = data[0];
  std::vector<std::string_view> lines =
      split(std::string_view(reinterpret_cast<const char*>(data) + 1, size - 1), '\n');
  lines.resize(std::max<std::size_t>(lines.size(), 5));

  stet::cors_options options;
  options.credentials = (setup & 1u) != 0;
  for (std::string_view o : split(lines[0], ',')) {
    if (!o.empty()) options.origins.emplace_back(o);
  }
  if ((setup & 4u) != 0) options.origins.emplace_back("*");
  for (std::string_view h : split(lines[1], ',')) {
    if (!h.empty()) options.allow_headers.emplace_back(h);
  }
  if ((setup & 2u) != 0) options.allow_headers.emplace_back("*");
  std::vector<std::string_view> extra_methods;
  if ((setup & 8u) != 0) {
    options.methods.push_back(stet::method::put);
    extra_methods.push_back("PUT");
  }
  if ((setup & 16u) != 0) {
    options.methods.push_back(stet::method::delete_);
    extra_methods.push_back("DELETE");
  }
  if ((setup & 32u) != 0) {
    options.methods.push_back(stet::method::patch);
    extra_methods.push_back("PATCH");
  }
  options.expose_headers = {"X-Total", "ETag"};

  std::optional<stet::detail::cors_policy> policy;
  try {
    policy.emplace(options);
  } catch (const std::invalid_argument&) {
    // Refused options: each bad origin must be one cors_origin_error() names.
    bool named = false;
    for (const std::string& o : options.origins) named = named || !stet::cors_origin_error(o).empty();
    for (const std::string& h : options.allow_headers) named = named || (h != "*" && !token(h));
    require(named, "options are refused only for a bad origin or header name", lines[0]);
    return 0;
  }
  for (const std::string& h : options.allow_headers) require(h == "*" || token(h), "allowed names are tokens", h);

  const std::string_view origin = lines[2];
  require(policy->decide(origin) == reference_decide(options.origins, options.credentials, origin),
          "the origin decision is the reference's", origin);
  require(policy->allows_headers(lines[3]) == reference_headers(options.allow_headers, lines[3]),
          "the requested-headers decision is the reference's", lines[3]);
  const std::string_view m = lines[4];
  const bool method = m == "GET" || m == "HEAD" || m == "POST" ||
                      std::find(extra_methods.begin(), extra_methods.end(), m) != extra_methods.end();
  require(policy->allows_method(m) == method, "the method decision is the reference's", m);
  require(stet::detail::is_field_value(policy->allow_headers) && stet::detail::is_field_value(policy->allow_methods) &&
              stet::detail::is_field_value(policy->expose_headers),
          "rendered values are field values", policy->allow_headers);
  return 0;
}
