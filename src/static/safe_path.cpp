#include "static/safe_path.hpp"

#include "http/percent.hpp"

namespace stet::detail {
namespace {

// Bytes no served path may contain, raw or decoded: a backslash is a separator
// on some file systems and proxies, controls (NUL above all) cut or confuse
// C string APIs and logs.
constexpr bool forbidden_byte(unsigned char c) noexcept { return c < 0x20 || c == 0x7f || c == '\\'; }

clean_path verdict(path_verdict v) noexcept { return clean_path{v, {}, false}; }

// `path` has had its one leading '/' removed already.
clean_path check_segments(std::string_view path, bool show_dotfiles) noexcept {
  if (path.size() > max_relative_path) return verdict(path_verdict::too_long);
  for (char c : path) {
    if (forbidden_byte(static_cast<unsigned char>(c))) return verdict(path_verdict::bad_request);
  }
  clean_path out;
  out.directory = path.empty() || path.back() == '/';
  if (!path.empty() && path.back() == '/') {
    path.remove_suffix(1);
    if (path.empty()) return verdict(path_verdict::bad_request);  // "//"
  }
  out.path = path;
  bool hidden = false;
  std::size_t begin = 0;
  while (begin <= path.size() && !path.empty()) {
    std::size_t end = path.find('/', begin);
    if (end == std::string_view::npos) end = path.size();
    const std::string_view segment = path.substr(begin, end - begin);
    // "a//b" would be harmless to the kernel, but a second spelling of one
    // file is a second cache key and a way around prefix-based rules.
    if (segment.empty() || segment == "." || segment == "..") return verdict(path_verdict::bad_request);
    if (segment.front() == '.' && !show_dotfiles) hidden = true;
    begin = end + 1;
  }
  if (hidden) return verdict(path_verdict::hidden);
  return out;
}

}  // namespace

clean_path check_relative_path(std::string_view path, bool show_dotfiles) noexcept {
  if (!path.empty() && path.front() == '/') path.remove_prefix(1);
  return check_segments(path, show_dotfiles);
}

clean_path clean_url_path(std::string_view raw, std::pmr::memory_resource& arena, bool show_dotfiles) {
  if (!raw.empty() && raw.front() == '/') raw.remove_prefix(1);
  if (raw.size() > 3 * max_relative_path) return verdict(path_verdict::too_long);
  const std::size_t first = raw.find('%');
  if (first == std::string_view::npos) return check_segments(raw, show_dotfiles);

  auto* out = static_cast<char*>(arena.allocate(raw.size(), 1));
  raw.copy(out, first);
  std::size_t n = first;
  for (std::size_t i = first; i < raw.size(); ++i) {
    if (raw[i] != '%') {
      out[n++] = raw[i];
      continue;
    }
    if (i + 2 >= raw.size()) return verdict(path_verdict::bad_request);
    const int hi = hex_value(raw[i + 1]);
    const int lo = hex_value(raw[i + 2]);
    if (hi < 0 || lo < 0) return verdict(path_verdict::bad_request);
    const auto decoded = static_cast<unsigned char>(hi * 16 + lo);
    // An encoded '/' would let one segment check see "a%2f..%2fb" as a single
    // harmless name that the kernel then walks as three.
    if (decoded == '/' || forbidden_byte(decoded)) return verdict(path_verdict::bad_request);
    out[n++] = static_cast<char>(decoded);
    i += 2;
  }
  return check_segments(std::string_view(out, n), show_dotfiles);
}

}  // namespace stet::detail
