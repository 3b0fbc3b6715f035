#pragma once
/// @file
/// stet::response: status, header fields and body of one answer.

#include <stet/cookies.hpp>
#include <stet/detail/pooled_string.hpp>
#include <stet/status.hpp>
#include <stet/stream.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <utility>

namespace stet {

namespace json {
// Defined in <stet/json.hpp>: response::json() needs them only where it is called,
// so a file that sends no JSON does not compile the writer (#26).
class writer;
enum class errc : std::uint8_t;
}  // namespace json

namespace detail {
class pending_response;
struct response_access;
struct websocket_upgrade;

// Whether T's definition has been seen here: response::json() checks that
// <stet/json.hpp> is included, so the error names the header to include.
template <typename T>
concept complete_type = requires {
  sizeof(T);
};
}  // namespace detail

class signer;

/// A read-only open file whose bytes responses send with sendfile(2). Shared:
/// a cache entry and every response in flight hold it, and the descriptor closes
/// with the last holder, so eviction never cuts a transfer short.
class file_source {
 public:
  /// Takes ownership of `fd`.
  explicit file_source(int fd) noexcept : fd_(fd) {}
  ~file_source();
  file_source(const file_source&) = delete;
  file_source& operator=(const file_source&) = delete;
  /// The descriptor; owned by this object.
  int fd() const noexcept { return fd_; }

 private:
  int fd_;
};

/// A response built by a handler and returned by value. Header fields are
/// validated once, when set, and kept serialised ("Name: value\r\n") so the
/// writer copies them in one pass. The writer adds the status line, Server,
/// Date, Content-Length and Connection itself.
class response {
 public:
  /// 200 with no body and no Content-Type.
  response() noexcept = default;
  /// `s` with no body and no Content-Type.
  explicit response(stet::status s) noexcept : status_(s) {}

  /// `body` as text/plain; charset=utf-8.
  static response text(std::string_view body, stet::status s = stet::status::ok);
  /// `body` as text/html; charset=utf-8.
  static response html(std::string_view body, stet::status s = stet::status::ok);
  /// `json`, already serialised, as application/json.
  static response json_text(std::string_view json, stet::status s = stet::status::ok);
  /// `value` written as JSON straight into the pooled body buffer, with
  /// Content-Type: application/json; no allocation in the steady state. `value`
  /// is a stet::json::serializable value, or else a function
  /// `fill(stet::json::writer&)` that writes exactly one value. If the writer
  /// reports a problem (stet::json::errc) the answer is a 500 with a JSON error
  /// body instead.
  /// @note Needs `#include <stet/json.hpp>` (or <stet/stet.hpp>) where it is
  /// called: the writer lives there, so files that send no JSON do not compile it.
  template <typename T, typename Writer = stet::json::writer>
  static response json(T&& value, stet::status s = stet::status::ok);
  /// The earlier argument order (#26: the status goes last, as in text() and
  /// html()): deprecated, removed in the next release.
  template <typename Fill>
  [[deprecated("the status goes last: json(fill, status)")]] static response json(stet::status s, Fill&& fill) {
    return json(std::forward<Fill>(fill), s);
  }

  /// A redirect (301, 302, 303, 307 or 308) to `location`.
  static response redirect(stet::status s, std::string_view location);
  /// `{"error":"<ec.message()>"}` (plus `"detail"` when given) as
  /// application/json, with the status http_status() gives a stet::error (400
  /// for other categories): how a handler answers a failed request::json() or
  /// request::form().
  static response json_error(std::error_code ec, std::string_view detail = {});

  /// The status code.
  stet::status status() const noexcept { return status_; }
  /// Replaces the status code.
  response& set_status(stet::status s) noexcept {
    status_ = s;
    return *this;
  }

  /// Appends a field (repeats allowed, e.g. Set-Cookie). Refuses, without
  /// writing anything, names that are not tokens, values with CR, LF, NUL or other
  /// controls, and the fields the writer owns (Content-Length, Transfer-Encoding,
  /// Date, Server, Connection).
  std::error_code add_header(std::string_view name, std::string_view value);
  /// Replaces every field named `name` (case-insensitive) with one; same checks.
  std::error_code set_header(std::string_view name, std::string_view value);
  /// add_header() for chaining with trusted values.
  /// @throws std::invalid_argument when add_header() would refuse the field.
  response& with_header(std::string_view name, std::string_view value) &;
  /// with_header() on a temporary.
  response&& with_header(std::string_view name, std::string_view value) &&;
  /// Appends a Set-Cookie field (see append_set_cookie() for the format and
  /// every refusal); on error nothing is written.
  std::error_code set_cookie(std::string_view name, std::string_view value, const cookie_options& options = {});
  /// Asks the client to delete cookie `name`: an empty value with Max-Age=0 and
  /// an Expires in 1970. `options` must carry the Path and Domain it was set with.
  std::error_code clear_cookie(std::string_view name, cookie_options options = {});
  /// set_cookie() of `value` signed by `s`: the value is base64url-encoded (so
  /// any bytes are allowed) and signed; read it back with request::signed_cookie().
  /// @throws std::bad_alloc when out of memory.
  std::error_code set_signed_cookie(const signer& s, std::string_view name, std::string_view value,
                                    const cookie_options& options = {});
  /// The first value of `name`, searched in the serialised fields (not a hot path).
  std::optional<std::string_view> header(std::string_view name) const noexcept;
  /// The serialised fields, each ending in CRLF.
  std::string_view header_block() const noexcept { return fields_.str(); }

  /// Replaces the body with a copy of `bytes`.
  response& set_body(std::string_view bytes);
  /// Replaces the body, taking `bytes`' buffer.
  response& set_body(std::string&& bytes) noexcept;
  /// Sends `bytes` without copying them; the response holds a reference until
  /// written. For bodies a cache keeps (file contents, pre-rendered pages).
  response& set_shared_body(std::shared_ptr<const std::string> bytes) noexcept;
  /// Sends `length` bytes of `file` from `offset` with sendfile(2) instead of a body.
  response& set_file(std::shared_ptr<const file_source> file, std::uint64_t offset, std::uint64_t length) noexcept;
  /// Streams the body: `producer` is called for each ~64 KiB piece, sent with
  /// chunked transfer coding (HTTP/1.1) or until close (HTTP/1.0).
  response& set_stream(stream_producer producer);
  /// Whether the body is streamed (set_stream()).
  bool is_stream() const noexcept { return static_cast<bool>(producer_); }
  /// The producer of a streamed body (null unless set_stream() was called).
  const stream_producer& producer() const noexcept { return producer_; }
  /// The body buffer, for appending in place (reuses a pooled buffer). Drops a
  /// shared body or file set before.
  std::string& body_buffer();
  /// The in-memory body (own or shared); empty when the body is a file.
  std::string_view body() const noexcept { return shared_ ? std::string_view(*shared_) : body_.str(); }
  /// The file the body comes from, or null.
  const file_source* file() const noexcept { return file_.get(); }
  /// Where in file() the body starts.
  std::uint64_t file_offset() const noexcept { return file_offset_; }
  /// The value of Content-Length: the file range's length, or the body's size.
  std::uint64_t content_length() const noexcept { return file_ ? file_length_ : body().size(); }

  /// Asks for the connection to close after this response.
  response& close_connection() noexcept {
    close_ = true;
    return *this;
  }
  /// Whether close_connection() was called.
  bool closes_connection() const noexcept { return close_; }

  /// Sends this response uncompressed whatever server_options::compression
  /// says: for an answer that reflects a secret (a CSRF token, a session value)
  /// next to request input, which compression would leak (BREACH).
  response& no_compression() noexcept {
    compression_allowed_ = false;
    return *this;
  }
  /// False after no_compression().
  bool compression_allowed() const noexcept { return compression_allowed_; }

 private:
  friend struct detail::response_access;
  void append_field(std::string_view name, std::string_view value);

  stet::status status_ = stet::status::ok;
  bool close_ = false;
  bool compression_allowed_ = true;
  bool from_cache_ = false;  // answered by a response cache: no handler ran for it
  detail::pooled_string fields_;
  detail::pooled_string body_;
  std::shared_ptr<const std::string> shared_;
  std::shared_ptr<const file_source> file_;
  std::uint64_t file_offset_ = 0;
  std::uint64_t file_length_ = 0;
  stream_producer producer_;
  // Set only while an asynchronous handler has not answered yet (see responder).
  std::shared_ptr<detail::pending_response> pending_;
  // Set only on the 101 of an accepted WebSocket upgrade: the session to start.
  std::shared_ptr<detail::websocket_upgrade> upgrade_;

  static response json_failure(stet::json::errc e);
  static response typed(std::string_view content_type, std::string_view body, stet::status s);
};

template <typename T, typename Writer>
response response::json(T&& value, stet::status s) {
  static_assert(detail::complete_type<Writer>,
                "stet::response::json needs #include <stet/json.hpp> (or <stet/stet.hpp>)");
  if constexpr (!detail::complete_type<Writer>) {
    return response(stet::status::internal_server_error);  // not reached: the assertion stops the build
  } else {
    response r(s);
    Writer w(r.body_buffer());
    if constexpr (requires(Writer & out, const std::remove_cvref_t<T>& v) { out.value(v); }) {
      w.value(value);
    } else {
      static_assert(std::is_invocable_v<T, Writer&>,
                    "stet::response::json takes a stet::json::serializable value or a fill(stet::json::writer&)");
      std::invoke(std::forward<T>(value), w);
    }
    if (!w.ok() || !w.complete()) return json_failure(w.error());
    r.append_field("Content-Type", "application/json");
    return r;
  }
}

}  // namespace stet
