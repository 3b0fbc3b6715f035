#pragma once
/// @file stet::request: a read-only view of one parsed HTTP request.

#include <stet/method.hpp>
#include <stet/route_params.hpp>

#include <memory_resource>
#include <optional>
#include <span>
#include <string_view>

namespace stet {

namespace detail {
struct request_access;
}

/// One header field as received: views into the connection's read buffer.
struct header_field {
  std::string_view name;
  std::string_view value;  ///< without leading and trailing whitespace
};

/// A parsed request. Every view points into the connection's buffers and stays
/// valid until the handler returns; copy what must live longer.
/// @note A request belongs to one worker thread; do not share it across threads.
class request {
 public:
  request() = default;
  request(const request&) = delete;
  request& operator=(const request&) = delete;

  /// The method; `method::other` for tokens stet does not route on.
  stet::method method() const noexcept { return method_; }
  /// The method token exactly as sent ("GET", "PROPFIND", ...).
  std::string_view method_name() const noexcept { return method_name_; }
  /// The request-target exactly as sent (origin-form, absolute-form, '*').
  std::string_view target() const noexcept { return target_; }
  /// The path with percent-escapes decoded ("/a%20b" -> "/a b"). Never empty.
  std::string_view path() const noexcept { return path_; }
  /// The path as sent, escapes intact; what routers and static mounts split on '/'.
  std::string_view raw_path() const noexcept { return raw_path_; }
  /// The query string after '?', undecoded; empty when absent.
  std::string_view query_string() const noexcept { return query_; }
  /// The Host header, or the authority of an absolute-form target (RFC 9112 3.2.2).
  std::string_view host() const noexcept { return host_; }
  /// HTTP version: 10 for HTTP/1.0, 11 for HTTP/1.1.
  unsigned version() const noexcept { return version_; }
  /// Whether the connection stays open after this request's response.
  bool keep_alive() const noexcept { return keep_alive_; }

  /// The first field named `name` (ASCII case-insensitive); nullopt when absent.
  std::optional<std::string_view> header(std::string_view name) const noexcept;
  /// Every header field in arrival order, repeated names included.
  std::span<const header_field> header_fields() const noexcept { return fields_; }
  /// The request body (de-chunked when it came chunked); empty when none.
  std::string_view body() const noexcept { return body_; }

  /// Memory that lives exactly as long as this request: scratch space for handlers.
  std::pmr::memory_resource& arena() const noexcept { return *arena_; }

  // Route parameters (set by stet::router before middleware and the handler run).
  /// Every parameter the matched route's pattern bound; empty before routing or when none matched.
  const route_params& params() const noexcept { return params_; }
  /// The decoded value of route parameter `name` (`{name}` in the pattern); nullopt when absent.
  std::optional<std::string_view> param(std::string_view name) const noexcept { return params_.get(name); }

 private:
  friend struct detail::request_access;

  stet::method method_ = stet::method::get;
  bool keep_alive_ = true;
  unsigned version_ = 11;
  std::string_view method_name_ = "GET";
  std::string_view target_ = "/";
  std::string_view path_ = "/";
  std::string_view raw_path_ = "/";
  std::string_view query_;
  std::string_view host_;
  std::string_view body_;
  std::span<const header_field> fields_;
  std::pmr::memory_resource* arena_ = std::pmr::new_delete_resource();
  route_params params_;
};

}  // namespace stet
