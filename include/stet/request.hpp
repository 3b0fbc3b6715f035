#pragma once
/// @file
/// stet::request: a read-only view of one parsed HTTP request.

#include <stet/cookies.hpp>
#include <stet/detail/client_origin.hpp>
#include <stet/endpoint.hpp>
#include <stet/form.hpp>
#include <stet/headers.hpp>
#include <stet/json_body.hpp>
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

class signer;
struct tls_info;

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
  /// The host the client asked for: the Host header, or the authority of an
  /// absolute-form target (RFC 9112 3.2.2); behind a trusted proxy (see
  /// client_address()), the host it forwarded, when it names a valid one.
  std::string_view host() const noexcept { return trust_ == nullptr ? host_ : origin().host(); }
  /// HTTP version: 10 for HTTP/1.0, 11 for HTTP/1.1.
  unsigned version() const noexcept { return version_; }
  /// Whether the connection stays open after this request's response.
  bool keep_alive() const noexcept { return keep_alive_; }
  /// The connection's peer: the socket's remote address (for a unix-domain
  /// socket, endpoint::family::unix_socket; none for an in-memory request).
  /// On a listener with PROXY protocol, the source address its header carried.
  const endpoint& remote_endpoint() const noexcept { return remote_ != nullptr ? *remote_ : no_endpoint_; }
  /// Whether the request arrived over TLS on this server's own socket (a
  /// listen_options::tls listener). It says nothing of a proxy in front:
  /// forwarded headers are not consulted.
  bool is_secure() const noexcept { return tls_ != nullptr; }
  /// What the connection's TLS session negotiated (protocol, cipher, SNI name,
  /// verified client certificate subject, resumption; <stet/tls.hpp>); null
  /// over plain HTTP. Valid as long as the request.
  const tls_info* tls() const noexcept { return tls_; }

  // The client behind trusted proxies (server_options::trusted_proxies). When
  // the peer is not one (always, with the default empty list), these are the
  // peer, the connection's scheme and the Host. When it is, they come from
  // Forwarded (RFC 7239), or else X-Forwarded-For / -Proto / -Host: the
  // right-most address that is not itself trusted. Read on first use of any
  // of them, then kept for the rest of the request; never allocates.

  /// The client's address: remote_endpoint(), or what trusted proxies say
  /// (with the port they gave, often 0); family none when a trusted proxy hid
  /// the client (`for=unknown`, `for=_hidden`).
  const endpoint& client_address() const noexcept { return trust_ == nullptr ? remote_endpoint() : origin().address(); }
  /// client_address() as text: "192.0.2.1", "2001:db8::1" (no brackets, no
  /// port), "unix" for a unix-socket peer, or a hidden client's identifier as
  /// sent ("unknown", "_hidden"). A view into this request.
  std::string_view client_address_text() const noexcept { return origin().address_text(); }
  /// "http" or "https": the connection's own, or the one a trusted proxy forwarded.
  std::string_view scheme() const noexcept { return trust_ == nullptr ? scheme_ : origin().scheme(); }

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

  // Memos: each is computed on first use, kept in the arena, and returned
  // as is (a pointer read) on every later call during this request.

  /// Every header field indexed by case-insensitive name (see header_map).
  /// @throws std::bad_alloc when the arena cannot allocate (first call only).
  const header_map& headers() const { return headers_memo_ != nullptr ? *headers_memo_ : build_headers(); }
  /// The cookies of the Cookie header (RFC 6265; malformed pairs skipped). The
  /// parse is also cached per thread across requests with the same Cookie bytes.
  /// @throws std::bad_alloc when the arena cannot allocate (first call only).
  const cookie_jar& cookies() const { return cookies_memo_ != nullptr ? *cookies_memo_ : build_cookies(); }
  /// The query string decoded as application/x-www-form-urlencoded (see parse_urlencoded()).
  /// @throws std::bad_alloc when the arena cannot allocate (first call only).
  const form_data& query() const { return query_memo_ != nullptr ? *query_memo_ : build_query(); }
  /// The body decoded as a urlencoded form; an error value (415 when the
  /// Content-Type is not application/x-www-form-urlencoded, 413 beyond
  /// default_form_max_fields fields), never an exception for bad input.
  /// @throws std::bad_alloc when the arena cannot allocate (first call only).
  const form_result& form() const { return form_memo_ != nullptr ? *form_memo_ : build_form(); }
  /// The body parsed as JSON (simdjson DOM, see parse_json()); an error value
  /// for a body over `max_bytes` (413, checked on every call), a Content-Type
  /// other than application/json or application/...+json (415), or invalid
  /// JSON (400). Never an exception for bad input.
  /// @throws std::bad_alloc when the arena cannot allocate (first call only).
  const json_result& json(std::size_t max_bytes = default_json_max_bytes) const;

  /// The value of cookie `name` as set by response::set_signed_cookie() with a
  /// signer of the same secret and purpose; nullopt when absent, malformed,
  /// badly signed or expired. An absent or empty cookie costs no MAC.
  /// @return A view into the arena, valid while the request is.
  std::optional<std::string_view> signed_cookie(const signer& s, std::string_view name) const;

 private:
  friend struct detail::request_access;

  const header_map& build_headers() const;
  const cookie_jar& build_cookies() const;
  const form_data& build_query() const;
  const form_result& build_form() const;
  const detail::client_origin& origin() const noexcept { return origin_resolved_ ? origin_ : resolve_origin(); }
  const detail::client_origin& resolve_origin() const noexcept;

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
  const endpoint* remote_ = nullptr;
  const tls_info* tls_ = nullptr;
  static constexpr endpoint no_endpoint_{};
  const detail::proxy_trust* trust_ = nullptr;  // null: nobody is trusted (shared, immutable)
  std::string_view scheme_ = "http";            // the connection's
  mutable detail::client_origin origin_;        // valid while origin_resolved_
  mutable bool origin_resolved_ = false;
  route_params params_;

  // Memo slots: null until first use; the objects live in *arena_ and are
  // forgotten (not destroyed: they are trivially destructible) by
  // request_access::begin_request() before the arena is reused.
  mutable const header_map* headers_memo_ = nullptr;
  mutable const cookie_jar* cookies_memo_ = nullptr;
  mutable const form_data* query_memo_ = nullptr;
  mutable const form_result* form_memo_ = nullptr;
  mutable const json_result* json_memo_ = nullptr;
};

}  // namespace stet
