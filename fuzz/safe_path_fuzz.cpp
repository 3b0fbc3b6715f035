// Target 2: percent-decoding of request paths and the static root's path
// normalisation. The property that matters: a path clean_url_path() accepts
// never names anything outside the root, however it was encoded.

#include "http/percent.hpp"
#include "static/safe_path.hpp"
#include "support/percent_encode.hpp"
#include "support/require.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory_resource>
#include <string>
#include <string_view>

namespace {

using stet::fuzz::require;

void check_decode(std::string_view raw) {
  std::pmr::monotonic_buffer_resource arena;
  const std::optional<std::string_view> decoded = stet::detail::percent_decode_path(raw, arena);
  if (!decoded) return;
  require(decoded->size() <= raw.size(), "decoding never grows a path", raw);
  // %00 is refused, so the only NULs are those sent as raw bytes (the request
  // line never lets one through; the static checks refuse them again).
  require(std::count(decoded->begin(), decoded->end(), '\0') == std::count(raw.begin(), raw.end(), '\0'),
          "decoding never makes a NUL", raw);
  if (raw.find('%') == std::string_view::npos) {
    require(decoded->data() == raw.data() && decoded->size() == raw.size(), "no escape: the input itself", raw);
    return;
  }
  // Any spelling of the same bytes decodes to the same bytes (but a raw NUL
  // spelled %00 is refused, by design).
  if (decoded->find('\0') != std::string_view::npos) return;
  const std::string encoded = stet::fuzz::percent_encode_all(*decoded);
  const std::optional<std::string_view> again = stet::detail::percent_decode_path(encoded, arena);
  require(again && *again == *decoded, "decode(encode(decoded)) == decoded", raw);
}

bool is_forbidden(char ch) noexcept {
  const auto c = static_cast<unsigned char>(ch);
  return c < 0x20 || c == 0x7f || c == '\\';
}

void check_clean_path(std::string_view raw, bool show_dotfiles) {
  std::pmr::monotonic_buffer_resource arena;
  const stet::detail::clean_path clean = stet::detail::clean_url_path(raw, arena, show_dotfiles);
  if (clean.verdict != stet::detail::path_verdict::ok) return;
  const std::string_view path = clean.path;
  require(path.size() <= stet::detail::max_relative_path, "an accepted path is within the length limit", raw);
  require(path.empty() || (path.front() != '/' && path.back() != '/'), "relative, no trailing slash", raw);
  std::size_t begin = 0;
  while (!path.empty() && begin <= path.size()) {
    std::size_t end = path.find('/', begin);
    if (end == std::string_view::npos) end = path.size();
    const std::string_view segment = path.substr(begin, end - begin);
    require(!segment.empty() && segment != "." && segment != "..", "no empty, '.' or '..' segment", raw);
    require(show_dotfiles || segment.front() != '.', "hidden segments are refused unless shown", raw);
    begin = end + 1;
  }
  for (const char c : path) require(!is_forbidden(c), "no control byte or backslash", raw);

  // The property itself: joined to a root and normalised, the path stays below it.
  const std::filesystem::path root("/srv/root");
  const std::string joined = (root / std::string(path)).lexically_normal().string();
  require(joined == root.string() || joined.starts_with(root.string() + "/"), "never escapes the root", raw);

  // Accepting is stable: the decoded path passes the check for decoded paths.
  const stet::detail::clean_path again = stet::detail::check_relative_path(path, show_dotfiles);
  require(again.verdict == stet::detail::path_verdict::ok && again.path == path, "clean paths stay clean", raw);

  // The static decoder agrees with the general one wherever it accepts.
  std::string_view relative = raw;
  if (!relative.empty() && relative.front() == '/') relative.remove_prefix(1);
  const std::optional<std::string_view> decoded = stet::detail::percent_decode_path(relative, arena);
  require(decoded.has_value(), "percent_decode_path accepts what clean_url_path accepts", raw);
  std::string expected(path);
  if (clean.directory && !path.empty()) expected += '/';
  require(*decoded == expected, "both decoders give the same path", raw);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  // The first byte picks the dotfile policy; the rest is the path as sent.
  const bool show_dotfiles = (data[0] & 1) != 0;
  const std::string_view raw(reinterpret_cast<const char*>(data) + 1, size - 1);
  check_decode(raw);
  check_clean_path(raw, show_dotfiles);
  return 0;
}
