#pragma once
// The one door through which the connection (and in-process dispatch) fills a
// stet::request; handlers only ever see the const accessors.

#include <stet/request.hpp>

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace stet::detail {

struct request_access {
  /// Forgets every memo of the previous request. The connection reuses one
  /// request object, so this runs before each new request is filled in.
  static void begin_request(request& r) noexcept {
    r.headers_memo_ = nullptr;
    r.cookies_memo_ = nullptr;
    r.query_memo_ = nullptr;
    r.form_memo_ = nullptr;
    r.json_memo_ = nullptr;
    r.origin_resolved_ = false;
  }
  static void set_method(request& r, stet::method m, std::string_view name) noexcept {
    r.method_ = m;
    r.method_name_ = name;
  }
  static void set_target(request& r, std::string_view target, std::string_view raw_path, std::string_view path,
                         std::string_view query) noexcept {
    r.target_ = target;
    r.raw_path_ = raw_path;
    r.path_ = path;
    r.query_ = query;
  }
  static void set_host(request& r, std::string_view host) noexcept { r.host_ = host; }
  /// The Host (or absolute-form authority) as sent, whatever a proxy forwarded.
  static std::string_view raw_host(const request& r) noexcept { return r.host_; }
  static void set_version(request& r, unsigned version, bool keep_alive) noexcept {
    r.version_ = version;
    r.keep_alive_ = keep_alive;
  }
  static void set_fields(request& r, std::span<const header_field> fields) noexcept { r.fields_ = fields; }
  static void set_body(request& r, std::string_view body) noexcept { r.body_ = body; }
  static void set_arena(request& r, std::pmr::memory_resource& arena) noexcept { r.arena_ = &arena; }
  /// `peer` must outlive the request (the connection holds it).
  static void set_remote(request& r, const endpoint& peer) noexcept { r.remote_ = &peer; }
  /// The connection's side of client_address(), scheme() and host(): whom it
  /// trusts (null or empty: nobody; must outlive the request) and its own scheme.
  static void set_origin(request& r, const proxy_trust* trust, std::string_view scheme) noexcept {
    r.trust_ = trust;
    r.scheme_ = scheme;
  }
  /// Whether client_address() may differ from remote_endpoint().
  static bool trusts_proxies(const request& r) noexcept { return r.trust_ != nullptr; }
  /// `tls` (null over plain HTTP) must outlive the request (the transport holds it).
  static void set_tls(request& r, const tls_info* tls) noexcept { r.tls_ = tls; }
  /// `v` follows bytes moved from [from, from + n) to `to`, if it points into them.
  static void follow(std::string_view& v, const char* from, std::size_t n, const char* to) noexcept {
    const auto at = reinterpret_cast<std::uintptr_t>(v.data());
    const auto begin = reinterpret_cast<std::uintptr_t>(from);
    if (at >= begin && at < begin + n) v = {to + (at - begin), v.size()};
  }
  /// The head the request's views point into moved from `from` to `to` (`n`
  /// bytes): every view follows, nothing is parsed again. The field list is
  /// the caller's to move (it owns the array).
  static void follow_head(request& r, const char* from, std::size_t n, const char* to) noexcept {
    for (std::string_view* v : {&r.method_name_, &r.target_, &r.path_, &r.raw_path_, &r.query_, &r.host_}) {
      follow(*v, from, n, to);
    }
  }
  // Route parameters: written by the router's dispatch only.
  static route_params& params(request& r) noexcept { return r.params_; }
};

}  // namespace stet::detail
