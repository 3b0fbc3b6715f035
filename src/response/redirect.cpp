#include "response/redirect.hpp"

#include "response/error_pages.hpp"

namespace stet::detail {

std::optional<std::string_view> local_location(std::string_view path, add_slash slash, std::string_view query,
                                               std::pmr::memory_resource& arena) {
  const bool slashed = slash == add_slash::yes;
  const std::size_t size = path.size() + (slashed ? 1 : 0) + (query.empty() ? 0 : query.size() + 1);
  auto* out = static_cast<char*>(arena.allocate(size, 1));
  std::size_t n = path.copy(out, path.size());
  if (slashed) out[n++] = '/';
  if (!query.empty()) {
    out[n++] = '?';
    n += query.copy(out + n, query.size());
  }
  const std::string_view location(out, n);
  if (location.empty() || location[0] != '/') return std::nullopt;
  if (location.size() > 1) {
    const auto second = static_cast<unsigned char>(location[1]);
    if (second == '/' || second == '\\' || second < 0x20 || second == 0x7f) return std::nullopt;
  }
  return location;
}

response local_redirect(const request& req, status s, std::string_view path, add_slash slash) {
  const auto location = local_location(path, slash, req.query_string(), req.arena());
  if (!location) return error_page(status::not_found, req);
  return response::redirect(s, *location);
}

}  // namespace stet::detail
