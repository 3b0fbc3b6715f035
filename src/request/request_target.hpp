#pragma once
// Fills a request's target, path, query and absolute-form host from the
// request-target as sent: the one way both the connection and test_request do it.

#include <stet/method.hpp>
#include <stet/request.hpp>

#include "http/percent.hpp"
#include "http/target.hpp"
#include "request/request_access.hpp"

#include <memory_resource>
#include <optional>
#include <string_view>

namespace stet::detail {

/// Sets `r`'s target(), raw_path(), path() (decoded into `arena` when it has
/// escapes), query_string() and, for an absolute-form target, host(). False
/// when the target is malformed for `m` or its path has a bad escape (400).
inline bool fill_target(request& r, stet::method m, std::string_view target, std::pmr::memory_resource& arena) {
  const std::optional<target_parts> parts = split_target(m, target);
  if (!parts) return false;
  const std::optional<std::string_view> path = percent_decode_path(parts->raw_path, arena);
  if (!path) return false;
  request_access::set_target(r, target, parts->raw_path, *path, parts->query);
  request_access::set_host(r, parts->authority);
  return true;
}

}  // namespace stet::detail
