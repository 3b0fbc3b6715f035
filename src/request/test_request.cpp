#include <stet/test_request.hpp>

#include "http/percent.hpp"
#include "request/request_access.hpp"
#include "http/token.hpp"

#include <stdexcept>

namespace stet {

using detail::request_access;

test_request::test_request(stet::method m, std::string_view target) : target_(target) {
  request_access::set_arena(request_, arena_);
  request_access::set_method(request_, m, to_string(m));
  const std::string_view whole = target_;
  if (whole == "*") {
    request_access::set_target(request_, whole, whole, whole, {});
    return;
  }
  if (whole.empty() || whole.front() != '/')
    throw std::invalid_argument("stet::test_request: target must start with '/'");
  const std::string_view no_fragment = whole.substr(0, whole.find('#'));
  const std::size_t question = no_fragment.find('?');
  const std::string_view raw_path = no_fragment.substr(0, question);
  const std::string_view query =
      question == std::string_view::npos ? std::string_view() : no_fragment.substr(question + 1);
  const std::optional<std::string_view> path = detail::percent_decode_path(raw_path, path_arena_);
  if (!path) throw std::invalid_argument("stet::test_request: malformed percent-escape in the path");
  request_access::set_target(request_, whole, raw_path, *path, query);
}

test_request& test_request::header(std::string_view name, std::string_view value) {
  const std::string& n = strings_.emplace_back(name);
  const std::string& v = strings_.emplace_back(value);
  fields_.push_back(header_field{n, v});
  request_access::begin_request(request_);  // memos built from the old fields are stale
  request_access::set_fields(request_, fields_);
  if (request_.host().empty() && detail::iequals(n, "host")) {
    request_access::set_host(request_, v);
  }
  return *this;
}

test_request& test_request::body(std::string_view bytes) {
  body_.assign(bytes);
  request_access::begin_request(request_);
  request_access::set_body(request_, body_);
  return *this;
}

void test_request::reset_arena() noexcept {
  request_access::begin_request(request_);  // the memos live in the arena
  arena_.release();
}

}  // namespace stet
