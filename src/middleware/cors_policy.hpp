#pragma once
// A CORS policy as derived once from cors_options: the origin table that
// decides each request and the header values every answer copies.

#include <stet/cors.hpp>

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace stet::detail {

/// How an allowed origin is named in Access-Control-Allow-Origin.
enum class origin_verdict : std::uint8_t {
  refused,
  echo,  // the request's own Origin value
  any,   // "*": any origin, no credentials
};

/// "https://*.example.com:8443" kept as its two fixed ends, lower case.
struct origin_pattern {
  std::string scheme;  // "https://"
  std::string suffix;  // ".example.com:8443"
};

/// Hashing and equality that take a string_view without building a string.
struct origin_hash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
};

/// Longest Origin looked up after lower-casing (a longer one is refused).
inline constexpr std::size_t max_origin_bytes = 512;

struct cors_policy {
  /// @throws std::invalid_argument as stet::cors's constructor says.
  explicit cors_policy(const cors_options& options);

  /// The decision for one Origin value. Never allocates.
  origin_verdict decide(std::string_view origin) const noexcept;
  /// Whether a preflight's Access-Control-Request-Method is allowed.
  bool allows_method(std::string_view token) const noexcept;
  /// Whether every name of a preflight's Access-Control-Request-Headers is allowed.
  bool allows_headers(std::string_view requested) const noexcept;

  std::unordered_set<std::string, origin_hash, std::equal_to<>> exact;  // lower case
  std::vector<origin_pattern> patterns;
  bool any_origin = false;
  bool credentials = false;
  bool any_header = false;
  std::uint16_t method_mask = 0;
  std::vector<std::string> header_names;  // lower case

  // Field values, rendered once; empty means "not sent".
  std::string allow_methods;
  std::string allow_headers;
  std::string expose_headers;
  std::string max_age;
};

}  // namespace stet::detail
