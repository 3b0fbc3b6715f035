#include <stet/multipart.hpp>

#include <algorithm>

namespace stet {
namespace {

constexpr bool is_trimmed(char c) noexcept { return c == '.' || c == ' '; }

constexpr bool is_control(char c) noexcept {
  const auto u = static_cast<unsigned char>(c);
  return u < 0x20 || u == 0x7f;
}

constexpr bool is_utf8_continuation(char c) noexcept { return (static_cast<unsigned char>(c) & 0xc0) == 0x80; }

std::string_view trim_dots_and_spaces(std::string_view s) noexcept {
  while (!s.empty() && is_trimmed(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_trimmed(s.back())) s.remove_suffix(1);
  return s;
}

// Cuts `name` to `max_bytes`, keeping a short extension and cutting the stem
// where no UTF-8 character is split (unless the stem is all continuation bytes,
// i.e. not UTF-8 at all).
std::string shorten(std::string_view name, std::size_t max_bytes) {
  constexpr std::size_t max_extension = 16;
  const std::size_t dot = name.rfind('.');
  const std::string_view extension =
      dot != std::string_view::npos && name.size() - dot <= max_extension ? name.substr(dot) : std::string_view();
  const std::string_view stem = name.substr(0, name.size() - extension.size());
  std::size_t cut = max_bytes - extension.size();
  while (cut > 0 && is_utf8_continuation(stem[cut])) --cut;
  if (cut == 0) cut = max_bytes - extension.size();
  std::string_view kept = stem.substr(0, cut);
  while (!kept.empty() && is_trimmed(kept.back())) kept.remove_suffix(1);
  std::string out(kept);
  out += extension;
  return out;
}

}  // namespace

std::string sanitize_filename(std::string_view raw, std::string_view fallback, std::size_t max_bytes) {
  max_bytes = std::max<std::size_t>(max_bytes, 32);
  const std::size_t separator = raw.find_last_of("/\\");
  if (separator != std::string_view::npos) raw.remove_prefix(separator + 1);
  std::string cleaned(raw);
  std::replace_if(cleaned.begin(), cleaned.end(), is_control, '_');
  const std::string_view name = trim_dots_and_spaces(cleaned);
  if (name.empty()) return std::string(fallback);
  if (name.size() <= max_bytes) return std::string(name);
  return shorten(name, max_bytes);
}

}  // namespace stet
