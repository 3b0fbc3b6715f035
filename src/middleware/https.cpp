#include <stet/https.hpp>

#include "response/response_access.hpp"

#include <fmt/format.h>

namespace stet {
namespace {

// The host without its port: "example.com:8080" -> "example.com", "[::1]:80" -> "[::1]".
std::string_view host_name(std::string_view host) noexcept {
  if (!host.empty() && host.front() == '[') {
    const std::size_t close = host.find(']');
    return close == std::string_view::npos ? host : host.substr(0, close + 1);
  }
  const std::size_t colon = host.rfind(':');
  return colon == std::string_view::npos ? host : host.substr(0, colon);
}

}  // namespace

hsts::hsts(hsts_options options) : value_(fmt::format("max-age={}", options.max_age.count())) {
  if (options.include_subdomains) value_ += "; includeSubDomains";
  if (options.preload) value_ += "; preload";
}

void hsts::after(request& req, response& res) const {
  if (!req.is_secure()) return;
  detail::response_access::append_trusted_field(res, "Strict-Transport-Security", value_);
}

std::optional<response> redirect_to_https::before(request& req) const {
  if (req.is_secure()) return std::nullopt;
  const std::string_view name = host_name(req.host());
  if (name.empty()) return response::text("a redirect to https needs a Host\n", status::bad_request);
  std::string location = port_ == 443 ? fmt::format("https://{}{}", name, req.raw_path())
                                      : fmt::format("https://{}:{}{}", name, port_, req.raw_path());
  if (!req.query_string().empty()) {
    location += '?';
    location += req.query_string();
  }
  const bool safe = req.method() == method::get || req.method() == method::head;
  return response::redirect(safe ? status::moved_permanently : status::permanent_redirect, location);
}

std::string absolute_url(const request& req, std::string_view path) {
  if (req.host().empty()) return std::string(path);
  return fmt::format("{}://{}{}", req.is_secure() ? "https" : "http", req.host(), path);
}

built_url absolute_url_for(const router& routes, const request& req, std::string_view name,
                           std::initializer_list<url_arg> args) {
  built_url built = routes.url_for(name, args);
  if (built) built.url = absolute_url(req, built.url);
  return built;
}

}  // namespace stet
