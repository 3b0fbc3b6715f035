#pragma once
// Fills a request's target, path, query and absolute-form host from the
// request-target as sent: the one way both the connection and test_request do it.

#include <stet/method.hpp>
#include <stet/request.hpp>

#include <memory_resource>
#include <string_view>

namespace stet::detail {

/// Sets `r`'s target(), raw_path(), path() (decoded into `arena` when it has
/// escapes), query_string() and, for an absolute-form target, host(). False
/// when the target is malformed for `m` or its path has a bad escape (400).
bool fill_target(request& r, stet::method m, std::string_view target, std::pmr::memory_resource& arena);

}  // namespace stet::detail
