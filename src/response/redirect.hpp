#pragma once
// The one place a redirect to another path of this site is built (trailing
// slash redirects, a static directory without its '/', a static mount's bare
// prefix), so that one guard keeps every Location on-site.

#include <stet/request.hpp>
#include <stet/response.hpp>
#include <stet/status.hpp>

#include <memory_resource>
#include <optional>
#include <string_view>

namespace stet::detail {

/// Whether a redirect target gets a '/' appended to the path.
enum class add_slash : bool { no, yes };

/// `path` (as sent: still percent-encoded), a '/' when `slash` says so, and
/// "?query" when `query` is not empty, built in `arena`. nullopt when the
/// result would not be a path on this site: it must start with '/', and its
/// second byte may not be '/' or '\' (browsers read "//host" and "/\host" as
/// another host) nor a control byte (browsers drop tabs and newlines from URLs,
/// so "/\t/host" would become "//host").
std::optional<std::string_view> local_location(std::string_view path, add_slash slash, std::string_view query,
                                               std::pmr::memory_resource& arena);

/// A redirect with status `s` to local_location(path, slash, req's query
/// string) in req's arena; the negotiated 404 page when that refuses.
response local_redirect(const request& req, status s, std::string_view path, add_slash slash);

}  // namespace stet::detail
