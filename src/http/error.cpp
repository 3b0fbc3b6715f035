#include <stet/error.hpp>

#include <string>

namespace stet {
namespace {

class stet_category final : public std::error_category {
 public:
  const char* name() const noexcept override { return "stet"; }

  std::string message(int value) const override {
    switch (static_cast<error>(value)) {
      case error::bad_request: return "malformed request";
      case error::bad_method: return "method not understood";
      case error::bad_target: return "malformed request-target";
      case error::bad_version: return "HTTP version not supported";
      case error::bad_header: return "malformed header field";
      case error::missing_host: return "HTTP/1.1 request without Host";
      case error::duplicate_host: return "more than one Host header";
      case error::bad_content_length: return "invalid or conflicting Content-Length";
      case error::bad_transfer_encoding: return "invalid Transfer-Encoding (HTTP/1.1 only, chunked last and once)";
      case error::unsupported_transfer_encoding: return "transfer coding not implemented";
      case error::bad_chunk: return "malformed chunked body";
      case error::target_too_long: return "request-target too long";
      case error::header_too_large: return "request header section too large";
      case error::too_many_headers: return "too many header fields";
      case error::body_too_large: return "request body too large";
      case error::expectation_failed: return "expectation not supported";
      case error::header_timeout: return "request head not received in time";
      case error::body_timeout: return "request body stalled";
      case error::body_too_slow: return "request body arrived below the minimum rate";
      case error::invalid_header_name: return "header name is not a token";
      case error::invalid_header_value: return "header value contains a control character";
      case error::reserved_header: return "header is written by stet itself";
      case error::invalid_cookie_name: return "cookie name is not a token";
      case error::invalid_cookie_value: return "cookie value contains a byte outside cookie-octet";
      case error::invalid_cookie_attribute: return "cookie Path or Domain is malformed";
      case error::cookie_needs_secure:
        return "browsers would drop this cookie: SameSite=None, __Secure- and __Host- need Secure; "
               "__Host- also Path=/ and no Domain";
      case error::unsupported_media_type: return "unsupported Content-Type for this body";
      case error::invalid_json: return "request body is not valid JSON";
      case error::too_many_form_fields: return "too many form fields";
      case error::unsupported_content_coding: return "request Content-Encoding not supported";
      case error::bad_content_coding: return "request body does not decode with its Content-Encoding";
      case error::decoded_body_too_large: return "request body decodes to more than the limit";
      case error::bad_multipart_boundary: return "multipart/form-data Content-Type without a valid boundary";
      case error::bad_multipart: return "malformed multipart/form-data body";
      case error::multipart_truncated: return "multipart/form-data body ended before its final boundary";
      case error::multipart_part_without_name: return "multipart/form-data part without a name";
      case error::multipart_header_too_large: return "multipart/form-data part header section too large";
      case error::too_many_multipart_parts: return "too many multipart/form-data parts";
      case error::multipart_part_too_large: return "multipart/form-data part too large";
    }
    return "unknown stet error";
  }
};

}  // namespace

status http_status(error e) noexcept {
  switch (e) {
    case error::bad_method:
    case error::unsupported_transfer_encoding: return status::not_implemented;
    case error::bad_version: return status::http_version_not_supported;
    case error::target_too_long: return status::uri_too_long;
    case error::header_too_large:
    case error::too_many_headers: return status::request_header_fields_too_large;
    case error::body_too_large:
    case error::too_many_form_fields:
    case error::decoded_body_too_large: return status::payload_too_large;
    case error::unsupported_media_type:
    case error::unsupported_content_coding: return status::unsupported_media_type;
    case error::multipart_header_too_large:
    case error::too_many_multipart_parts:
    case error::multipart_part_too_large: return status::payload_too_large;
    case error::expectation_failed: return status::expectation_failed;
    case error::header_timeout:
    case error::body_timeout:
    case error::body_too_slow: return status::request_timeout;
    default: return status::bad_request;
  }
}

const std::error_category& error_category() noexcept {
  static const stet_category category;
  return category;
}

}  // namespace stet
