#pragma once
// File extension -> Content-Type, from a table built once.

#include <string_view>

namespace stet::detail {

/// The Content-Type for `path`'s extension (ASCII case-insensitive), with
/// "; charset=utf-8" for text types; "application/octet-stream" when unknown.
/// The view refers to static storage.
std::string_view mime_type(std::string_view path) noexcept;

}  // namespace stet::detail
