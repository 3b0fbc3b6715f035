#include <stet/status_page.hpp>

#include "crypto/sha256.hpp"
#include "http/conditional.hpp"
#include "metrics/snapshot.hpp"
#include "metrics/worker_counters.hpp"
#include "request/field_lines.hpp"
#include "status/status_html.hpp"
#include "status/status_json.hpp"

#include <chrono>
#include <string>
#include <utility>

namespace stet {
namespace {

// Derived from the bytes, so a page built with other options or by another
// version never answers 304 to a browser holding the old one.
std::string page_etag(const std::string& html) {
  detail::sha256 digest;
  digest.update(html);
  const std::optional<detail::sha256_hex> hex = digest.finish();
  std::string etag = "\"status-";
  etag.append(hex ? std::string_view(hex->data(), 16) : std::string_view("0"));
  etag += '"';
  return etag;
}

}  // namespace

status_page::status_page(std::shared_ptr<const metrics> m, const status_page_options& options)
    : metrics_(std::move(m)),
      html_(std::make_shared<const std::string>(detail::make_status_html(options))),
      etag_(page_etag(*html_)),
      started_(std::chrono::steady_clock::now()) {}

response status_page::page(const request& req) const {
  const std::optional<std::string_view> known = detail::combined_field(req, "If-None-Match");
  const bool fresh = known && detail::etag_list_matches(*known, etag_, true);
  response r(fresh ? status::not_modified : status::ok);
  r.set_header("ETag", etag_);
  r.set_header("Cache-Control", "no-cache");
  if (fresh) return r;
  r.set_header("Content-Type", "text/html; charset=utf-8");
  // Everything is inline and the data comes from this origin: a browser
  // refuses any other source, whatever a route pattern shown on it contains.
  r.set_header("Content-Security-Policy",
               "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; connect-src 'self'; "
               "img-src data:; base-uri 'none'; form-action 'none'");
  r.set_shared_body(html_);
  return r;
}

void status_page::write_json(stet::json::writer& w) const {
  detail::metrics_snapshot s;
  detail::metrics_access::read(*metrics_, s);
  const std::chrono::duration<double> up = std::chrono::steady_clock::now() - started_;
  detail::write_status_json(w, s, up.count());
}

response status_page::json() const {
  response r = response::json([this](stet::json::writer& w) { write_json(w); });
  r.set_header("Cache-Control", "no-store");
  return r;
}

void mount_status(router& routes, std::string_view path, std::shared_ptr<const metrics> m,
                  status_page_options options) {
  std::string json_path(path);
  json_path += path.ends_with('/') ? "status.json" : ".json";
  options.json_url = json_path.substr(json_path.rfind('/') + 1);
  auto page = std::make_shared<const status_page>(std::move(m), std::move(options));
  routes.get(std::string(path), [page](request& req) { return page->page(req); });
  routes.get(json_path, [page](request&) { return page->json(); });
}

}  // namespace stet
