#pragma once
/// @file
/// stet::status_page: an HTML page that shows a stet::metrics object's caches,
/// routes and connections, and refreshes itself from a JSON document of the
/// same data (docs/status.md).

#include <stet/metrics.hpp>
#include <stet/request.hpp>
#include <stet/response.hpp>
#include <stet/router.hpp>

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

namespace stet {

namespace json {
class writer;
}  // namespace json

/// How a status_page looks and refreshes.
struct status_page_options {
  /// Where the page fetches its data, resolved against the page's own URL (so
  /// the default suits a page at `/-/status` with its JSON at `/-/status.json`).
  std::string json_url = "status.json";
  /// How often the page fetches json_url.
  std::chrono::milliseconds refresh = std::chrono::seconds(2);
  /// How many refreshes the page's sparklines keep (150 at 2 s: five minutes).
  std::size_t history = 150;
};

/// The status page of one metrics object: page() is the HTML (built once, at
/// construction, and shared by every answer; no external assets), json() the
/// data it shows, read per request from the same counters as
/// metrics::text(). Thread-safe: any worker may call both at once.
class status_page {
 public:
  /// A page over `m` (which must not be null). @throws std::bad_alloc.
  explicit status_page(std::shared_ptr<const metrics> m, const status_page_options& options = {});

  /// The HTML page: 200 with an ETag and `Cache-Control: no-cache`, or 304
  /// when `req`'s If-None-Match names that ETag.
  response page(const request& req) const;
  /// The data as application/json, with `Cache-Control: no-store`.
  response json() const;
  /// Writes the data (one JSON object, docs/status.md) into `w`, for a
  /// document of the caller's own.
  void write_json(stet::json::writer& w) const;
  /// The page's ETag, quotes included.
  std::string_view etag() const noexcept { return etag_; }

 private:
  std::shared_ptr<const metrics> metrics_;
  std::shared_ptr<const std::string> html_;
  std::string etag_;
  std::chrono::steady_clock::time_point started_;
};

/// Routes `GET path` to a new status_page over `m`, and `GET path.json` to its
/// data (when `path` ends in `/`: `GET path` and `GET pathstatus.json`); the
/// page fetches the latter by a relative URL, so it works under any prefix.
/// `options.json_url` is set from `path`. @throws route_error as router::get().
void mount_status(router& routes, std::string_view path, std::shared_ptr<const metrics> m,
                  status_page_options options = {});

}  // namespace stet
