#pragma once

#include <string_view>

namespace stet_server {

/// The git commit stet-server was built from: "abcdef1", "abcdef1-dirty" when
/// the tracked files differed from it, "unknown" outside a checkout. Written
/// at build time (cmake/stet_build_commit.cmake) into a source of its own, so
/// that a benchmark can name the binary it measured, not the checkout's HEAD.
std::string_view build_commit() noexcept;

}  // namespace stet_server
