#pragma once
// A parsed head becomes the exchange's request once per request: views into
// the read buffer (the head is never copied), the decoded path in the arena,
// the field list trimmed. If the head has to move afterwards (a streaming
// route wants room behind it, or the buffer grows under a long head), the
// request's views and its route's captures follow it: nothing is parsed,
// built or matched again.

#include <stet/endpoint.hpp>
#include <stet/tls.hpp>

#include <cstddef>
#include <string_view>

namespace stet::detail {

struct exchange;
class proxy_trust;

/// Who sent the request and how: what the request reports beside its head.
struct request_origin {
  const endpoint& peer;
  const proxy_trust* trust;
  std::string_view scheme;
  const tls_info* tls;
};

/// Fills x.request from the head the parser just completed. False when the
/// request-target cannot be used (400).
bool assemble_request(exchange& x, const request_origin& from);

/// Moves the open message's bytes, [message_start, end), to the start of a
/// buffer of at least `capacity` bytes (the same one when it is large enough),
/// and everything that points into the head follows.
void move_message_to_front(exchange& x, std::size_t capacity);

}  // namespace stet::detail
