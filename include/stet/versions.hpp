#pragma once
/// @file
/// Versions of stet and of the libraries it was built against.

#include <span>
#include <string_view>

namespace stet {

/// One component and its version, as build_versions() lists them.
struct component_version {
  std::string_view name;     ///< "stet", "llhttp", "boost", "simdjson", "fmt", "openssl"
  std::string_view version;  ///< as the component reports it
};

/// Every component stet was built with; computed once, valid for the process.
std::span<const component_version> build_versions() noexcept;

}  // namespace stet
