#pragma once
// Content-Type matching for the body readers: the media type is compared
// case-insensitively and its parameters (charset, boundary, ...) are ignored.

#include "http/token.hpp"

#include <string_view>

namespace stet::detail {

/// The "type/subtype" part of a Content-Type value, parameters and whitespace removed.
constexpr std::string_view media_type_essence(std::string_view content_type) noexcept {
  return trim_ows(content_type.substr(0, content_type.find(';')));
}

/// application/x-www-form-urlencoded.
constexpr bool is_urlencoded_media_type(std::string_view content_type) noexcept {
  return iequals(media_type_essence(content_type), "application/x-www-form-urlencoded");
}

/// application/json or any application/...+json (RFC 6839 structured suffix).
constexpr bool is_json_media_type(std::string_view content_type) noexcept {
  const std::string_view essence = media_type_essence(content_type);
  if (iequals(essence, "application/json")) return true;
  constexpr std::string_view prefix = "application/";
  constexpr std::string_view suffix = "+json";
  return essence.size() > prefix.size() + suffix.size() && iequals(essence.substr(0, prefix.size()), prefix) &&
         iequals(essence.substr(essence.size() - suffix.size()), suffix);
}

}  // namespace stet::detail
