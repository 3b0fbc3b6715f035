#pragma once
/// @file
/// stet::test_request: a request built in memory, for dispatching through
/// router::handle() without a socket (tests, internal sub-requests).

#include <stet/method.hpp>
#include <stet/request.hpp>
#include <stet/tls.hpp>

#include <array>
#include <cstddef>
#include <deque>
#include <memory>
#include <memory_resource>
#include <string>
#include <string_view>
#include <vector>

namespace stet {

/// Owns everything a stet::request views: target, header fields, body and an
/// arena. Pass it where a `request&` is expected:
/// `routes.handle(stet::test_request(stet::method::get, "/users/42?x=1"))`.
/// @note Neither copyable nor movable: the request points into it.
class test_request {
 public:
  /// `target` as a client sends it (origin form "/path?query", absolute form,
  /// "*" for OPTIONS), split and percent-decoded exactly as the connection does.
  /// @throws std::invalid_argument for a target the connection would answer with 400.
  test_request(stet::method m, std::string_view target);
  test_request(const test_request&) = delete;
  test_request& operator=(const test_request&) = delete;

  /// Appends a header field (Host also sets request::host()).
  test_request& header(std::string_view name, std::string_view value);
  /// Sets the body.
  test_request& body(std::string_view bytes);
  /// Sets the connection's peer (request::remote_endpoint(); none by default).
  test_request& peer(const endpoint& e);
  /// Sets the connection's own scheme ("http" by default; "https" as over TLS).
  test_request& scheme(std::string_view s);
  /// Trusts these proxies as server_options::trusted_proxies would, so
  /// client_address(), scheme() and host() read the forwarded fields.
  /// @throws std::invalid_argument naming the first bad entry.
  test_request& trusted_proxies(const std::vector<std::string>& entries);
  /// Marks the request as received over TLS that negotiated `info` (copied;
  /// its views must outlive this object): request::is_secure() is then true.
  test_request& tls(const tls_info& info);

  /// Frees what the router and handlers put in the request's arena, as the
  /// connection does after each response; views into it become invalid and the
  /// request's memos (headers(), cookies(), query(), form(), json()) are recomputed.
  void reset_arena() noexcept;

  /// The request, to pass where a `request&` is expected.
  stet::request& get() noexcept { return request_; }
  /// get(), implicitly.
  operator stet::request&() noexcept { return request_; }  // NOLINT: meant to convert implicitly

 private:
  std::array<std::byte, 1024> arena_buffer_;
  std::pmr::monotonic_buffer_resource arena_{arena_buffer_.data(), arena_buffer_.size()};
  std::pmr::monotonic_buffer_resource path_arena_;  // the decoded path outlives reset_arena()
  std::string target_;
  std::string body_;
  std::deque<std::string> strings_;  // header names and values; a deque keeps their addresses
  std::vector<header_field> fields_;
  endpoint peer_;
  std::string scheme_ = "http";
  std::shared_ptr<const detail::proxy_trust> trust_;
  tls_info tls_;
  stet::request request_;
};

}  // namespace stet
