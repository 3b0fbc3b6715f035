#pragma once
// stet's own error answers (404, 405, 500 from the router; 400, 408, 413, 431,
// ... from the connection), rendered once per process and shared by every
// response that sends them: an error costs a table lookup and a reference
// count, never formatting or a copy of the body.

#include <stet/error.hpp>
#include <stet/response.hpp>
#include <stet/status.hpp>

#include "response/accept.hpp"

#include <string_view>

namespace stet {
class request;
}

namespace stet::detail {

/// The default page for `s` (a 4xx or 5xx status) in `format`, with its
/// Content-Type and `Vary: Accept`. Text is "Reason\n"; HTML a minimal page;
/// JSON `{"error":"Reason","status":N}` (the shape of response::json_error()).
response error_page(status s, error_format format);

/// error_page() in the format the request's Accept header prefers (text when
/// it has none).
response error_page(status s, const request& req);

/// The text/plain answer to a request the connection refuses before routing:
/// "Reason: message\n" with the status http_status() gives `e`. Not negotiated:
/// the head may be incomplete or malformed, so its Accept cannot be trusted.
response error_page(error e);

}  // namespace stet::detail
