#pragma once
/// @file HTTP status codes and their reason phrases.

#include <cstdint>
#include <string_view>

namespace stet {

/// An HTTP status code. Values outside the named list are allowed (100..599).
enum class status : std::uint16_t {
  continue_ = 100,
  switching_protocols = 101,
  ok = 200,
  created = 201,
  accepted = 202,
  no_content = 204,
  partial_content = 206,
  moved_permanently = 301,
  found = 302,
  see_other = 303,
  not_modified = 304,
  temporary_redirect = 307,
  permanent_redirect = 308,
  bad_request = 400,
  unauthorized = 401,
  forbidden = 403,
  not_found = 404,
  method_not_allowed = 405,
  not_acceptable = 406,
  request_timeout = 408,
  conflict = 409,
  gone = 410,
  length_required = 411,
  precondition_failed = 412,
  payload_too_large = 413,
  uri_too_long = 414,
  unsupported_media_type = 415,
  range_not_satisfiable = 416,
  expectation_failed = 417,
  unprocessable_content = 422,
  upgrade_required = 426,
  too_many_requests = 429,
  request_header_fields_too_large = 431,
  internal_server_error = 500,
  not_implemented = 501,
  bad_gateway = 502,
  service_unavailable = 503,
  gateway_timeout = 504,
  http_version_not_supported = 505,
};

/// The RFC 9110 reason phrase, or "" for a code without one.
std::string_view reason_phrase(status s) noexcept;

/// The numeric value of a status.
constexpr unsigned to_int(status s) noexcept { return static_cast<unsigned>(s); }

/// True for statuses whose responses never carry a body (1xx, 204, 304).
constexpr bool status_forbids_body(status s) noexcept {
  const unsigned code = to_int(s);
  return code < 200 || code == 204 || code == 304;
}

}  // namespace stet
