#include "response/compress/response_compression.hpp"

#include <stet/request.hpp>
#include <stet/response.hpp>

#include <stet/detail/pooled_string.hpp>

#include "http/token.hpp"
#include "request/field_lines.hpp"
#include "response/compress/compress.hpp"
#include "response/compress/variant.hpp"
#include "response/error_pages.hpp"
#include "response/header_scan.hpp"
#include "response/response_access.hpp"

#include <string>

namespace stet::detail {
namespace {

bool lists_no_transform(std::string_view cache_control) noexcept {
  while (!cache_control.empty()) {
    const std::size_t comma = cache_control.find(',');
    if (iequals(trim_ows(cache_control.substr(0, comma)), "no-transform")) return true;
    if (comma == std::string_view::npos) break;
    cache_control.remove_prefix(comma + 1);
  }
  return false;
}

// The body, coded. Written into a pooled buffer that then becomes the body,
// so the identity buffer goes back to the pool and nothing is allocated in the
// steady state.
bool code_body(response& r, content_coding c, const encoder_params& p) {
  pooled_string coded;
  std::string& out = coded.writable();
  out.clear();
  if (!compress_body(c, p, r.body(), out)) return false;
  r.set_body(std::move(out));
  return true;
}

bool code_stream(response& r, content_coding c, const encoder_params& p) {
  stream_producer coded = compress_stream(r.producer(), c, p);
  if (!coded) return false;
  r.set_stream(std::move(coded));
  return true;
}

void retag(response& r, content_coding c) {
  const std::optional<std::string_view> etag = r.header("ETag");
  if (!etag) return;
  std::string variant;
  if (variant_etag(*etag, c, variant)) (void)r.set_header("ETag", variant);
}

}  // namespace

compression_request compression_facts(const request& q) {
  compression_request facts;
  facts.head = q.method() == stet::method::head;
  bool repeated = false;
  for (const header_field& f : q.header_fields()) {
    if (!facts.range && iequals(f.name, "range")) facts.range = true;
    if (iequals(f.name, "accept-encoding")) {
      repeated = repeated || facts.accept_encoding.has_value();
      if (!facts.accept_encoding) facts.accept_encoding = f.value;
    }
  }
  // RFC 9110 5.3: several lines are one list, and the memo keys on all of it.
  if (repeated) facts.accept_encoding = join_field_lines(q.header_fields(), "accept-encoding", q.arena());
  return facts;
}

compression_response compression_facts(const response& r) noexcept {
  compression_response facts;
  facts.status = r.status();
  facts.streamed = r.is_stream();
  facts.file = r.file() != nullptr;
  facts.size = r.content_length();
  facts.allowed = r.compression_allowed();
  for_each_field(r.header_block(), [&](std::string_view name, std::string_view value) {
    if (iequals(name, "content-type")) {
      facts.content_type = value;
    } else if (iequals(name, "content-encoding")) {
      facts.has_content_encoding = true;
    } else if (iequals(name, "cache-control")) {
      facts.no_transform = facts.no_transform || lists_no_transform(value);
    }
    return false;
  });
  return facts;
}

compression_plan compress_response(const request& q, response& r, const compression_options& s, bool route_allows) {
  // Decided before any header list is scanned: the small answer, and answers
  // never coded here (a static file's answer carries its own variant and says
  // no_compression(); a route or an answer that opted out; a file body), for
  // which plan_compression() would end in the empty plan.
  if (!may_compress(r, s) || !route_allows || !r.compression_allowed() || r.file() != nullptr) return {};
  compression_response facts = compression_facts(r);
  facts.allowed = facts.allowed && route_allows;
  compression_plan plan = plan_compression(compression_facts(q), facts, s);
  if (plan.vary) add_vary_accept_encoding(r);
  if (plan.coding == content_coding::identity) return plan;
  // HEAD sends no body, so the body is not coded; the headers are what GET's would be.
  const encoder_params p = params_of(s);
  const bool coded = q.method() == stet::method::head ||
                     (facts.streamed ? code_stream(r, plan.coding, p) : code_body(r, plan.coding, p));
  if (!coded) {
    plan.coding = content_coding::identity;
    plan.omit_content_length = false;
    return plan;
  }
  response_access::append_trusted_field(r, "Content-Encoding", coding_name(plan.coding));
  retag(r, plan.coding);
  return plan;
}

bool compress_or_refuse(const compression_options& s, const request& q, response& r) {
  const compression_plan plan = compress_response(q, r, s);
  if (plan.not_acceptable) {
    // The page is small (under min_bytes by default) and refused identity is
    // what brought us here: it goes as it is, like every error page.
    r = error_page(stet::status::not_acceptable, q);
    add_vary_accept_encoding(r);  // another Accept-Encoding gets the resource
    return false;
  }
  return plan.omit_content_length;
}

}  // namespace stet::detail
