#include "request/request_target.hpp"

#include "http/percent.hpp"
#include "http/target.hpp"
#include "request/request_access.hpp"

namespace stet::detail {

bool fill_target(request& r, stet::method m, std::string_view target, std::pmr::memory_resource& arena) {
  const std::optional<target_parts> parts = split_target(m, target);
  if (!parts) return false;
  const std::optional<std::string_view> path =
      parts->raw_path == "*" ? parts->raw_path : percent_decode_path(parts->raw_path, arena);
  if (!path) return false;
  request_access::set_target(r, target, parts->raw_path, *path, parts->query);
  request_access::set_host(r, parts->authority);
  return true;
}

}  // namespace stet::detail
