#include "static/mime_table.hpp"

#include "http/token.hpp"

#include <algorithm>
#include <array>
#include <utility>

namespace stet::detail {
namespace {

using mime_entry = std::pair<std::string_view, std::string_view>;

// Sorted at compile time, so a lookup is a binary search over constant data:
// nothing to build at run time and nothing to lock.
constexpr auto mime_entries = [] {
  std::array<mime_entry, 36> table = {{
      {"avif", "image/avif"},
      {"bmp", "image/bmp"},
      {"css", "text/css; charset=utf-8"},
      {"csv", "text/csv; charset=utf-8"},
      {"gif", "image/gif"},
      {"htm", "text/html; charset=utf-8"},
      {"html", "text/html; charset=utf-8"},
      {"ico", "image/x-icon"},
      {"jpeg", "image/jpeg"},
      {"jpg", "image/jpeg"},
      {"js", "text/javascript; charset=utf-8"},
      {"json", "application/json"},
      {"map", "application/json"},
      {"md", "text/markdown; charset=utf-8"},
      {"mjs", "text/javascript; charset=utf-8"},
      {"mp3", "audio/mpeg"},
      {"mp4", "video/mp4"},
      {"otf", "font/otf"},
      {"pdf", "application/pdf"},
      {"png", "image/png"},
      {"svg", "image/svg+xml"},
      {"tar", "application/x-tar"},
      {"ttf", "font/ttf"},
      {"txt", "text/plain; charset=utf-8"},
      {"wasm", "application/wasm"},
      {"webm", "video/webm"},
      {"webmanifest", "application/manifest+json"},
      {"webp", "image/webp"},
      {"woff", "font/woff"},
      {"woff2", "font/woff2"},
      {"xhtml", "application/xhtml+xml"},
      {"xml", "text/xml; charset=utf-8"},
      {"yaml", "text/yaml; charset=utf-8"},
      {"yml", "text/yaml; charset=utf-8"},
      {"zip", "application/zip"},
      {"zst", "application/zstd"},
  }};
  std::sort(table.begin(), table.end(), [](const mime_entry& a, const mime_entry& b) { return a.first < b.first; });
  return table;
}();

constexpr std::string_view fallback = "application/octet-stream";

}  // namespace

std::string_view mime_type(std::string_view path) noexcept {
  const std::size_t slash = path.rfind('/');
  const std::size_t dot = path.rfind('.');
  if (dot == std::string_view::npos || (slash != std::string_view::npos && dot < slash)) return fallback;
  const std::string_view ext = path.substr(dot + 1);
  std::array<char, 12> lower{};
  if (ext.empty() || ext.size() > lower.size()) return fallback;
  for (std::size_t i = 0; i < ext.size(); ++i) lower[i] = ascii_lower(ext[i]);
  const std::string_view key(lower.data(), ext.size());
  const auto it = std::lower_bound(mime_entries.begin(), mime_entries.end(), key,
                                   [](const mime_entry& e, std::string_view k) { return e.first < k; });
  return it != mime_entries.end() && it->first == key ? it->second : fallback;
}

}  // namespace stet::detail
