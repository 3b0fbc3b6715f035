#include "response/compress/policy.hpp"

#include "http/token.hpp"
#include "request/media_type.hpp"
#include "response/compress/accept_encoding_memo.hpp"

namespace stet::detail {
namespace {

bool pattern_matches(std::string_view pattern, std::string_view type, std::string_view subtype) noexcept {
  const std::size_t slash = pattern.find('/');
  if (slash == std::string_view::npos || !iequals(pattern.substr(0, slash), type)) return false;
  const std::string_view want = pattern.substr(slash + 1);
  if (want == "*") return true;
  if (want.starts_with("*+")) {  // a structured syntax suffix: "*+json" matches "ld+json"
    const std::string_view suffix = want.substr(1);
    return subtype.size() > suffix.size() && iequals(subtype.substr(subtype.size() - suffix.size()), suffix);
  }
  return iequals(want, subtype);
}

bool has_body(stet::status s) noexcept {
  const auto code = static_cast<unsigned>(s);
  return code >= 200 && s != stet::status::no_content;
}

// Statuses whose body is not the selected representation in full.
bool partial_or_empty(stet::status s) noexcept {
  return s == stet::status::partial_content || s == stet::status::not_modified;
}

}  // namespace

bool media_type_listed(std::string_view content_type, std::span<const std::string> patterns) noexcept {
  const std::string_view essence = media_type_essence(content_type);
  const std::size_t slash = essence.find('/');
  if (slash == std::string_view::npos) return false;
  const std::string_view type = essence.substr(0, slash);
  const std::string_view subtype = essence.substr(slash + 1);
  for (const std::string& p : patterns) {
    if (pattern_matches(p, type, subtype)) return true;
  }
  return false;
}

compression_plan plan_compression(const compression_request& request, const compression_response& response,
                                  const compression_options& settings) noexcept {
  compression_plan plan;
  if (!settings.enabled || !response.allowed || !has_body(response.status)) return plan;
  if (response.has_content_encoding || response.no_transform || response.file) return plan;
  const bool sized = !response.streamed && !partial_or_empty(response.status);
  if (sized && response.size < settings.min_bytes) return plan;
  if (!media_type_listed(response.content_type, settings.media_types)) return plan;
  plan.vary = true;
  if (partial_or_empty(response.status) || request.range || !request.accept_encoding) return plan;
  const negotiation n = negotiate(cached_accept_encoding(*request.accept_encoding), settings.codings);
  plan.coding = n.coding;
  plan.not_acceptable = !n.acceptable;
  plan.omit_content_length = request.head && n.coding != content_coding::identity;
  return plan;
}

}  // namespace stet::detail
