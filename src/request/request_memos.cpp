#include <stet/error.hpp>
#include <stet/request.hpp>
#include <stet/signer.hpp>

#include "http/base64url.hpp"
#include "http/token.hpp"
#include "request/arena.hpp"
#include "request/cookie_cache.hpp"
#include "request/media_type.hpp"

#include <string>

namespace stet {
namespace {

// A client should send one Cookie field (RFC 6265 5.4), but HTTP/2 gateways
// split it: several are joined with "; " in the arena and parsed uncached.
cookie_jar cookies_of(std::span<const header_field> fields, std::pmr::memory_resource& arena) {
  const header_field* first = nullptr;
  std::size_t count = 0;
  std::size_t joined_size = 0;
  for (const header_field& f : fields) {
    if (!detail::iequals(f.name, "cookie")) continue;
    if (first == nullptr) first = &f;
    ++count;
    joined_size += f.value.size() + 2;
  }
  if (first == nullptr) return {};
  if (count == 1) return detail::cached_cookie_jar(first->value, arena);
  char* joined = static_cast<char*>(arena.allocate(joined_size, 1));
  std::size_t n = 0;
  for (const header_field& f : fields) {
    if (!detail::iequals(f.name, "cookie")) continue;
    if (n > 0) {
      joined[n++] = ';';
      joined[n++] = ' ';
    }
    f.value.copy(joined + n, f.value.size());
    n += f.value.size();
  }
  return parse_cookie_header(std::string_view(joined, n), arena);
}

const json_result& json_too_large() noexcept {
  static const json_result result(error::body_too_large, "JSON body over the size limit");
  return result;
}

}  // namespace

const header_map& request::build_headers() const {
  headers_memo_ = detail::arena_new<header_map>(*arena_, index_headers(fields_, *arena_));
  return *headers_memo_;
}

const cookie_jar& request::build_cookies() const {
  cookies_memo_ = detail::arena_new<cookie_jar>(*arena_, cookies_of(fields_, *arena_));
  return *cookies_memo_;
}

const form_data& request::build_query() const {
  query_memo_ = detail::arena_new<form_data>(*arena_, parse_urlencoded(query_, *arena_));
  return *query_memo_;
}

const form_result& request::build_form() const {
  const auto result = [&]() -> form_result {
    if (!detail::is_urlencoded_media_type(header("content-type").value_or(""))) {
      return form_result(make_error_code(error::unsupported_media_type));
    }
    if (count_urlencoded_fields(body_) > default_form_max_fields) {
      return form_result(make_error_code(error::too_many_form_fields));
    }
    return form_result(parse_urlencoded(body_, *arena_));
  }();
  form_memo_ = detail::arena_new<form_result>(*arena_, result);
  return *form_memo_;
}

const json_result& request::json(std::size_t max_bytes) const {
  if (body_.size() > max_bytes) return json_too_large();
  if (json_memo_ != nullptr) return *json_memo_;
  const auto result = [&]() -> json_result {
    if (!detail::is_json_media_type(header("content-type").value_or(""))) {
      return json_result(error::unsupported_media_type, "Content-Type is not application/json");
    }
    return parse_json(body_, *arena_, max_bytes);
  }();
  json_memo_ = detail::arena_new<json_result>(*arena_, result);
  return *json_memo_;
}

std::optional<std::string_view> request::signed_cookie(const signer& s, std::string_view name) const {
  const std::optional<std::string_view> raw = cookies().get(name);
  if (!raw || raw->empty()) return std::nullopt;
  const verified v = s.verify(*raw);
  if (!v) return std::nullopt;
  // set_signed_cookie() base64url-encodes the value so any bytes survive the
  // cookie-octet alphabet; the signature covers the encoded text.
  const std::optional<std::size_t> size = detail::base64url_decoded_size(v.value.size());
  if (!size) return std::nullopt;
  if (*size == 0) return std::string_view();
  auto* out = static_cast<unsigned char*>(arena_->allocate(*size, 1));
  if (!detail::base64url_decode(v.value, out)) return std::nullopt;
  return std::string_view(reinterpret_cast<const char*>(out), *size);
}

}  // namespace stet
