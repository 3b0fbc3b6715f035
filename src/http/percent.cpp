#include "http/percent.hpp"

namespace stet::detail {

std::optional<std::string_view> percent_decode_path(std::string_view raw, std::pmr::memory_resource& arena) {
  const std::size_t first = raw.find('%');
  if (first == std::string_view::npos) return raw;

  auto* out = static_cast<char*>(arena.allocate(raw.size(), 1));
  std::size_t n = first;
  raw.copy(out, first);
  for (std::size_t i = first; i < raw.size(); ++i) {
    if (raw[i] != '%') {
      out[n++] = raw[i];
      continue;
    }
    if (i + 2 >= raw.size()) return std::nullopt;
    const int hi = hex_value(raw[i + 1]);
    const int lo = hex_value(raw[i + 2]);
    if (hi < 0 || lo < 0) return std::nullopt;
    const char decoded = static_cast<char>(hi * 16 + lo);
    if (decoded == '\0') return std::nullopt;
    out[n++] = decoded;
    i += 2;
  }
  return std::string_view(out, n);
}

}  // namespace stet::detail
