#pragma once
/// @file Version of the stet library. No logic lives here.

#include <string_view>

#define STET_VERSION_MAJOR 0
#define STET_VERSION_MINOR 1
#define STET_VERSION_PATCH 0

namespace stet {

/// The library version as "major.minor.patch".
inline constexpr std::string_view version_string = "0.1.0";

}  // namespace stet
