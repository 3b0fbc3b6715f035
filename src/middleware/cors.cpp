#include <stet/cors.hpp>

#include "http/token.hpp"
#include "middleware/cors_policy.hpp"
#include "request/field_lines.hpp"
#include "response/response_access.hpp"

namespace stet {
namespace {

using detail::origin_verdict;

void append(response& r, std::string_view name, std::string_view value) {
  detail::response_access::append_trusted_field(r, name, value);
}

// Every value appended here was validated: rendered from the options when the
// policy was built, or an Origin the policy matched character by character
// (exact entries and pattern labels allow only origin characters), or a
// preflight's header list whose items were all checked to be tokens.
void allow_origin(response& r, const detail::cors_policy& p, origin_verdict v, std::string_view origin) {
  append(r, "Access-Control-Allow-Origin", v == origin_verdict::any ? std::string_view("*") : origin);
  if (p.credentials) append(r, "Access-Control-Allow-Credentials", "true");
}

response preflight(const detail::cors_policy& p, const request& req, std::string_view origin, std::string_view asked) {
  response r(status::no_content);
  // The answer depends on all three: a cache must not reuse it for another.
  append(r, "Vary", "Origin, Access-Control-Request-Method, Access-Control-Request-Headers");
  // Every line of the list (RFC 9110 5.3): a name on a second line is checked too.
  const std::string_view headers =
      detail::trim_ows(detail::combined_field(req, "access-control-request-headers").value_or(""));
  const origin_verdict v = p.decide(origin);
  if (v == origin_verdict::refused || !p.allows_method(asked) || !p.allows_headers(headers)) return r;
  allow_origin(r, p, v, origin);
  if (!p.allow_methods.empty()) append(r, "Access-Control-Allow-Methods", p.allow_methods);
  if (p.any_header && p.credentials) {
    if (!headers.empty()) append(r, "Access-Control-Allow-Headers", headers);
  } else if (!p.allow_headers.empty()) {
    append(r, "Access-Control-Allow-Headers", p.allow_headers);
  }
  if (!p.max_age.empty()) append(r, "Access-Control-Max-Age", p.max_age);
  return r;
}

}  // namespace

cors::cors(const cors_options& options) : policy_(std::make_shared<const detail::cors_policy>(options)) {}

std::optional<response> cors::before(request& req) const {
  if (req.method() != method::options) return std::nullopt;
  const std::optional<std::string_view> origin = req.header("origin");
  if (!origin) return std::nullopt;
  const std::optional<std::string_view> asked = req.header("access-control-request-method");
  if (!asked) return std::nullopt;  // a plain OPTIONS from a page: an actual request
  return preflight(*policy_, req, *origin, *asked);
}

void cors::after(request& req, response& res) const {
  append(res, "Vary", "Origin");
  const std::optional<std::string_view> origin = req.header("origin");
  if (!origin) return;
  const origin_verdict v = policy_->decide(*origin);
  if (v == origin_verdict::refused) return;
  allow_origin(res, *policy_, v, *origin);
  if (!policy_->expose_headers.empty()) append(res, "Access-Control-Expose-Headers", policy_->expose_headers);
}

bool cors::allows_origin(std::string_view origin) const noexcept {
  return policy_->decide(origin) != origin_verdict::refused;
}

}  // namespace stet
