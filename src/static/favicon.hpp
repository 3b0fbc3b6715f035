#pragma once
// The built-in favicon, for sites that have none (browsers ask for it anyway).

#include <string>

namespace stet::detail {

/// A 16x16, 32-bit ICO (1150 bytes): a filled circle on a transparent ground.
/// Built on each call; the static_files responder builds it once.
std::string make_default_favicon();

}  // namespace stet::detail
