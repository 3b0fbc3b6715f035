#include <stet/test_request.hpp>

#include "http/token.hpp"
#include "request/proxy_trust.hpp"
#include "request/request_access.hpp"
#include "request/request_target.hpp"

#include <stdexcept>

namespace stet {

using detail::request_access;

test_request::test_request(stet::method m, std::string_view target) : target_(target) {
  request_access::set_arena(request_, arena_);
  request_access::set_remote(request_, peer_);
  request_access::set_method(request_, m, to_string(m));
  if (!detail::fill_target(request_, m, target_, path_arena_)) {
    throw std::invalid_argument("stet::test_request: not a request-target for this method, or a malformed escape");
  }
}

test_request& test_request::header(std::string_view name, std::string_view value) {
  const std::string& n = strings_.emplace_back(name);
  const std::string& v = strings_.emplace_back(value);
  fields_.push_back(header_field{n, v});
  request_access::begin_request(request_);  // memos built from the old fields are stale
  request_access::set_fields(request_, fields_);
  if (request_access::raw_host(request_).empty() && detail::iequals(n, "host")) {
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

test_request& test_request::peer(const endpoint& e) {
  peer_ = e;
  request_access::begin_request(request_);
  return *this;
}

test_request& test_request::scheme(std::string_view s) {
  scheme_.assign(s);
  request_access::begin_request(request_);
  request_access::set_origin(request_, trust_.get(), scheme_);
  return *this;
}

test_request& test_request::trusted_proxies(const std::vector<std::string>& entries) {
  detail::proxy_trust_result compiled = detail::proxy_trust::compile(entries);
  if (compiled.error) throw std::invalid_argument("stet::test_request: " + compiled.error->message());
  trust_ = compiled.trust.empty() ? nullptr : std::make_shared<const detail::proxy_trust>(std::move(compiled.trust));
  request_access::begin_request(request_);
  request_access::set_origin(request_, trust_.get(), scheme_);
  return *this;
}

test_request& test_request::tls(const tls_info& info) {
  tls_ = info;
  request_access::set_tls(request_, &tls_);
  return *this;
}

void test_request::reset_arena() noexcept {
  request_access::begin_request(request_);  // the memos live in the arena
  arena_.release();
}

}  // namespace stet
