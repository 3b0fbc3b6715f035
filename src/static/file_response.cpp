#include "static/file_response.hpp"

#include "http/token.hpp"
#include "request/field_lines.hpp"
#include "response/response_access.hpp"

#include <charconv>

namespace stet::detail {
namespace {

void set_once(std::optional<std::string_view>& slot, std::string_view value) noexcept {
  if (!slot) slot = value;
}

// A list-valued field: the first line's value, and whether another follows.
struct list_field {
  std::optional<std::string_view> value;
  bool repeated = false;

  void see(std::string_view v) noexcept {
    repeated = repeated || value.has_value();
    set_once(value, v);
  }
  // The whole list: the first line alone (no copy) unless it was repeated.
  std::optional<std::string_view> combined(const request& req, std::string_view name) const {
    return repeated ? join_field_lines(req.header_fields(), name, req.arena()) : value;
  }
};

// Every field of a file response is stet's own: names are constants, values
// come from the cache entry (rendered once when it was loaded), from constants,
// or from the Cache-Control options checked when the responder was built. So
// they are appended as they are, not validated again on every response.
void append(response& res, std::string_view name, std::string_view value) {
  response_access::append_trusted_field(res, name, value);
}

void add_validators(response& res, const file_reply& r) {
  append(res, "ETag", r.coded != nullptr ? std::string_view(r.coded->etag) : r.representation.etag_view());
  if (r.representation.dated) append(res, "Last-Modified", r.representation.last_modified_view());
  if (!r.cache_control.empty()) append(res, "Cache-Control", r.cache_control);
  if (r.vary) append(res, "Vary", "Accept-Encoding");
}

}  // namespace

static_request_fields read_static_fields(const request& req) {
  static_request_fields f;
  f.conditions.head = req.method() == stet::method::head;
  list_field if_match;
  list_field if_none_match;
  list_field accept_encoding;
  for (const header_field& h : req.header_fields()) {
    const std::string_view n = h.name;
    switch (n.size()) {
      case 5:
        if (iequals(n, "range")) set_once(f.conditions.range, h.value);
        break;
      case 8:
        if (iequals(n, "if-match")) if_match.see(h.value);
        if (iequals(n, "if-range")) set_once(f.conditions.if_range, h.value);
        break;
      case 13:
        if (iequals(n, "if-none-match")) if_none_match.see(h.value);
        break;
      case 15:
        if (iequals(n, "accept-encoding")) accept_encoding.see(h.value);
        break;
      case 17:
        if (iequals(n, "if-modified-since")) set_once(f.conditions.if_modified_since, h.value);
        break;
      case 19:
        if (iequals(n, "if-unmodified-since")) set_once(f.conditions.if_unmodified_since, h.value);
        break;
      default: break;
    }
  }
  f.conditions.if_match = if_match.combined(req, "if-match");
  f.conditions.if_none_match = if_none_match.combined(req, "if-none-match");
  f.accept_encoding = accept_encoding.combined(req, "accept-encoding");
  return f;
}

representation_facts facts_of(const file_entry& entry, const file_variant* coded) noexcept {
  representation_facts facts;
  facts.etag = coded != nullptr ? std::string_view(coded->etag) : entry.etag_view();
  if (entry.dated) facts.last_modified = entry.mtime;
  facts.size = coded != nullptr ? coded->bytes->size() : entry.id.size;
  return facts;
}

response build_file_response(const file_reply& r, const decision& d) {
  const file_entry& e = r.representation;
  const std::shared_ptr<const std::string>& bytes = r.coded != nullptr ? r.coded->bytes : e.bytes;
  const std::uint64_t size = bytes ? bytes->size() : e.id.size;
  std::array<char, 72> range_text{};
  switch (d.kind) {
    case outcome::not_modified: {
      response res(stet::status::not_modified);
      add_validators(res, r);
      return res;
    }
    case outcome::precondition_failed: return response(stet::status::precondition_failed);
    case outcome::range_not_satisfiable: {
      response res(stet::status::range_not_satisfiable);
      append(res, "Content-Range", content_range(d, size, range_text));
      append(res, "Accept-Ranges", "bytes");
      return res;
    }
    case outcome::full:
    case outcome::partial: break;
  }
  const bool partial = d.kind == outcome::partial;
  response res(partial ? stet::status::partial_content : stet::status::ok);
  append(res, "Content-Type", r.content_type);
  if (!r.content_encoding.empty()) append(res, "Content-Encoding", r.content_encoding);
  add_validators(res, r);
  append(res, "Accept-Ranges", "bytes");
  if (partial) append(res, "Content-Range", content_range(d, size, range_text));
  if (bytes) {
    if (partial) {
      res.set_body(std::string_view(*bytes).substr(d.offset, d.length));
    } else {
      res.set_shared_body(bytes);
    }
  } else {
    res.set_file(e.file, d.offset, d.length);
  }
  return res;
}

}  // namespace stet::detail
