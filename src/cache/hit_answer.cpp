#include "cache/hit_answer.hpp"

#include "http/token.hpp"
#include "response/compress/accept_encoding_memo.hpp"
#include "response/compress/policy.hpp"
#include "response/response_access.hpp"

#include <array>
#include <charconv>

namespace stet::detail {
namespace {

void append(response& r, std::string_view name, std::string_view value) {
  response_access::append_trusted_field(r, name, value);
}

void append_age(response& r, const cache_entry& e, cache_clock::time_point now) {
  const auto age = std::chrono::duration_cast<std::chrono::seconds>(now - e.stored).count();
  std::array<char, 24> text{};
  const char* end = std::to_chars(text.data(), text.data() + text.size(), age < 0 ? 0 : age).ptr;
  append(r, "Age", std::string_view(text.data(), static_cast<std::size_t>(end - text.data())));
}

response finish(response r, const cache_entry& e, cache_clock::time_point now, bool cached) {
  append_age(r, e, now);
  r.no_compression();  // the coding was chosen here, from the entry's variants
  if (cached) response_access::mark_from_cache(r);
  return r;
}

}  // namespace

hit_request read_hit_request(const request& req) noexcept {
  hit_request q;
  q.conditions.head = req.method() == stet::method::head;
  for (const header_field& h : req.header_fields()) {
    const std::string_view n = h.name;
    auto once = [&h](std::optional<std::string_view>& slot) {
      if (!slot) slot = h.value;
    };
    if (iequals(n, "range"))
      once(q.conditions.range);
    else if (iequals(n, "if-range"))
      once(q.conditions.if_range);
    else if (iequals(n, "if-match"))
      once(q.conditions.if_match);
    else if (iequals(n, "if-none-match"))
      once(q.conditions.if_none_match);
    else if (iequals(n, "accept-encoding"))
      once(q.accept_encoding);
  }
  return q;
}

content_coding choose_coding(const cache_entry& e, const hit_request& q, const compression_options& s) noexcept {
  if (!s.enabled || !e.compressible || q.conditions.range || !q.accept_encoding) return content_coding::identity;
  return negotiate(cached_accept_encoding(*q.accept_encoding), s.codings).coding;
}

response answer_from_entry(const cache_entry& e, const hit_request& q, const coded_variant* coded,
                           std::string_view coding, cache_clock::time_point now, bool cached) {
  const std::shared_ptr<const std::string>& bytes = coded != nullptr ? coded->bytes : e.body;
  const std::string_view etag = coded != nullptr ? std::string_view(coded->etag) : std::string_view(e.etag);
  // Validators and ranges describe the 200 representation; a stored 404 is
  // sent as it is.
  decision d{outcome::full, 0, bytes->size()};
  if (e.status == stet::status::ok) d = evaluate(q.conditions, {etag, std::nullopt, bytes->size()});
  std::array<char, 72> range_text{};
  switch (d.kind) {
    case outcome::not_modified: {
      response r(stet::status::not_modified);
      append(r, "ETag", etag);
      return finish(std::move(r), e, now, cached);
    }
    case outcome::precondition_failed: return finish(response(stet::status::precondition_failed), e, now, cached);
    case outcome::range_not_satisfiable: {
      response r(stet::status::range_not_satisfiable);
      append(r, "Content-Range", content_range(d, bytes->size(), range_text));
      return finish(std::move(r), e, now, cached);
    }
    case outcome::full:
    case outcome::partial: break;
  }
  const bool partial = d.kind == outcome::partial;
  response r(partial ? stet::status::partial_content : e.status);
  response_access::append_trusted_block(r, e.fields);
  append(r, "ETag", etag);
  if (e.status == stet::status::ok) append(r, "Accept-Ranges", "bytes");
  if (!coding.empty()) append(r, "Content-Encoding", coding);
  if (partial) {
    append(r, "Content-Range", content_range(d, bytes->size(), range_text));
    r.set_body(std::string_view(*bytes).substr(d.offset, d.length));
  } else {
    r.set_shared_body(bytes);
  }
  return finish(std::move(r), e, now, cached);
}

}  // namespace stet::detail
