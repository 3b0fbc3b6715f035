#include "net/http1/request_assembly.hpp"

#include "http/token.hpp"
#include "net/http1/exchange.hpp"
#include "request/request_access.hpp"
#include "request/request_target.hpp"

#include <cstring>
#include <memory>
#include <utility>

namespace stet::detail {

bool assemble_request(exchange& x, const request_origin& from) {
  request& req = x.request;
  request_access::begin_request(req);
  request_access::set_remote(req, from.peer);
  request_access::set_origin(req, from.trust, from.scheme);
  request_access::set_tls(req, from.tls);
  const char* base = x.buffer.get() + x.parser.message_start();
  const auto view = [base](span s) { return std::string_view(base + s.offset, s.length); };

  const std::span<const field_span> spans = x.parser.fields();
  for (std::size_t i = 0; i < spans.size(); ++i) {
    x.fields[i] = header_field{view(spans[i].name), trim_ows(view(spans[i].value))};
  }
  request_access::set_fields(req, std::span<const header_field>(x.fields.data(), spans.size()));
  request_access::set_method(req, x.parser.method(), x.parser.method_name());
  request_access::set_version(req, x.parser.version(), x.parser.keep_alive());
  x.route.generation = 0;  // not matched yet
  if (!fill_target(req, x.parser.method(), view(x.parser.target()), x.arena)) return false;
  // The parser found Host while it checked the head: no second search by name.
  if (request_access::raw_host(req).empty() && x.parser.host_field() != request_parser::no_field) {
    request_access::set_host(req, x.fields[x.parser.host_field()].value);
  }
  return true;
}

void move_message_to_front(exchange& x, std::size_t capacity) {
  const std::size_t start = x.parser.message_start();
  const std::size_t n = x.end - start;
  const char* const from = x.buffer.get() + start;
  std::unique_ptr<char[]> old;  // kept until the views have followed: they are compared with it
  if (capacity > x.capacity) {
    std::unique_ptr<char[]> bigger(new char[capacity]);
    std::memcpy(bigger.get(), from, n);
    old = std::exchange(x.buffer, std::move(bigger));
    x.capacity = capacity;
  } else if (start > 0) {
    std::memmove(x.buffer.get(), from, n);
  } else {
    return;
  }
  x.parser.rebase(start);
  x.begin -= start;
  x.end -= start;
  if (!x.parser.head_done()) return;  // no view points into a head still being parsed
  const char* const to = x.buffer.get();
  request_access::follow_head(x.request, from, n, to);
  for (std::size_t i = 0; i < x.parser.fields().size(); ++i) {
    request_access::follow(x.fields[i].name, from, n, to);
    request_access::follow(x.fields[i].value, from, n, to);
  }
  if (x.route.generation != 0) {
    for (std::size_t i = 0; i < x.route.outcome.captured; ++i) {
      request_access::follow(x.route.captures.items[i].value, from, n, to);
      request_access::follow(x.route.captures.items[i].raw, from, n, to);
    }
  }
}

}  // namespace stet::detail
