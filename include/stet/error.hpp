#pragma once
/// @file
/// One error enum for the whole library, with its std::error_category.

#include <stet/status.hpp>

#include <string>
#include <string_view>
#include <system_error>
#include <utility>

namespace stet {

/// Everything stet can report as an error value. Protocol errors carry the HTTP
/// status they are answered with (see http_status()).
enum class error {
  // Request framing and syntax (answered 400 unless noted).
  bad_request = 1,
  bad_method,                     ///< 501: method token not understood
  bad_target,                     ///< malformed request-target or path escape
  bad_version,                    ///< 505: not HTTP/1.0 or HTTP/1.1
  bad_header,                     ///< malformed header field
  missing_host,                   ///< HTTP/1.1 request without Host
  duplicate_host,                 ///< more than one Host field
  bad_content_length,             ///< invalid, duplicate or conflicting Content-Length
  bad_transfer_encoding,          ///< Transfer-Encoding without a final chunked
  unsupported_transfer_encoding,  ///< 501: a transfer coding other than chunked
  bad_chunk,                      ///< invalid chunk size or chunk framing
  // Limits.
  target_too_long,     ///< 414
  header_too_large,    ///< 431: header section over max_header_bytes
  too_many_headers,    ///< 431: more than max_header_count fields
  body_too_large,      ///< 413
  expectation_failed,  ///< 417: an Expect other than 100-continue
  // Timeouts.
  header_timeout,  ///< 408: the request head did not arrive in time
  body_timeout,    ///< 408: the body stalled
  body_too_slow,   ///< 408: the body came slower than server_options::min_body_rate
  // Response building.
  invalid_header_name,   ///< not an RFC 9110 token
  invalid_header_value,  ///< CR, LF, NUL or another control character
  reserved_header,       ///< a header the writer owns (Content-Length, Date, ...)
  // Cookies out (response::set_cookie).
  invalid_cookie_name,       ///< not an RFC 6265 cookie-name (token)
  invalid_cookie_value,      ///< a byte outside RFC 6265 cookie-octet
  invalid_cookie_attribute,  ///< a Path with a control byte or ';', a Domain that is not a host name
  cookie_needs_secure,       ///< browsers would drop it: SameSite=None/__Secure-/__Host- need Secure
  // Request bodies (request::form(), request::json()).
  unsupported_media_type,  ///< 415: the Content-Type is not the one the body is read as
  invalid_json,            ///< malformed JSON, invalid UTF-8, nesting too deep, or an empty body
  too_many_form_fields,    ///< 413: more urlencoded fields than the form limit
  // Coded request bodies (compression_options::decode_request_bodies).
  unsupported_content_coding,  ///< 415: a Content-Encoding stet does not decode, or more than one
  bad_content_coding,          ///< 400: the coded body is corrupt, truncated or has trailing bytes
  decoded_body_too_large,      ///< 413: the body decodes to more than max_decoded_body_bytes
  // multipart/form-data bodies (multipart_parser; multipart_error says more).
  bad_multipart_boundary,       ///< a multipart/form-data Content-Type without a valid boundary
  bad_multipart,                ///< malformed multipart body: boundary line, part header, bare CR or LF
  multipart_truncated,          ///< the body ended before the final boundary
  multipart_part_without_name,  ///< a part without Content-Disposition: form-data; name="..."
  multipart_header_too_large,   ///< 413: a part's header section over its limit
  too_many_multipart_parts,     ///< 413: more parts than the part limit
  multipart_part_too_large,     ///< 413: one part's data (or a collected text field) over its limit
};

/// The HTTP status a request failing with `e` is answered with (400 when no
/// more specific one applies).
status http_status(error e) noexcept;

/// The category of stet::error values; name() is "stet".
const std::error_category& error_category() noexcept;

/// Lets `std::error_code ec = stet::error::bad_chunk;` work.
inline std::error_code make_error_code(error e) noexcept { return {static_cast<int>(e), error_category()}; }

/// Why a configuration could not be put to use: what it was about (the address
/// or the file) and the reason, in words. Returned by server::start() (a busy
/// port, a bad listener address, a certificate that cannot be used),
/// server::reload_tls(), server::reopen_access_log() and run_until_signal().
/// False when there was no error.
class config_error {
 public:
  /// No error.
  config_error() = default;
  /// `code`, described by `message`.
  config_error(std::error_code code, std::string message) : code_(code), message_(std::move(message)) {}

  /// The error (e.g. std::errc::address_in_use); empty when there was none.
  const std::error_code& code() const noexcept { return code_; }
  /// E.g. "listen on 127.0.0.1:80: Permission denied".
  const std::string& message() const noexcept { return message_; }
  /// True when there was an error.
  explicit operator bool() const noexcept { return static_cast<bool>(code_); }
  /// The code alone, for callers that keep only a std::error_code.
  operator std::error_code() const noexcept { return code_; }  // NOLINT(google-explicit-constructor): code-only callers

 private:
  std::error_code code_;
  std::string message_;
};

/// The earlier name (#26: one error type for start() and the reloads of its
/// files): deprecated, removed in the next release.
using start_error [[deprecated("renamed config_error")]] = config_error;

}  // namespace stet

template <>
struct std::is_error_code_enum<stet::error> : std::true_type {};
