#pragma once
// The status page's HTML: one self-contained document (inline CSS, script and
// SVG), built once per status_page.

#include <stet/status_page.hpp>

#include <string>

namespace stet::detail {

/// The page for `options` (its JSON URL, refresh period and history length
/// are written into the body's data attributes, HTML-escaped).
std::string make_status_html(const status_page_options& options);

}  // namespace stet::detail
