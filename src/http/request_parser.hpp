#pragma once
// llhttp wrapper: noexcept callbacks, every limit enforced while parsing, a
// pause at each message end (pipelined bytes stay in the caller's buffer), and
// the head recorded as offsets, never copied.

#include <stet/error.hpp>
#include <stet/method.hpp>

#include <llhttp.h>

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace stet::detail {

/// A byte range relative to the start of the current message.
struct span {
  std::uint32_t offset = 0;
  std::uint32_t length = 0;
};

struct field_span {
  span name;
  span value;
};

/// The limits the parser enforces. The parser sits below the server: the
/// connection's exchange copies them out of server_options once.
struct parser_limits {
  std::size_t max_header_bytes;
  std::size_t max_target_bytes;
  std::size_t max_header_count;
  std::size_t max_body_bytes;
};

class request_parser {
 public:
  enum class event {
    need_more,         ///< every byte consumed; the message is not complete
    head_complete,     ///< the head is parsed and a body follows (or 100-continue is asked)
    message_complete,  ///< a whole request is parsed; bytes after it are untouched
    body_piece,        ///< body_mode::stream: piece() is the next piece of the body
    failed,            ///< see failure()
  };
  /// What becomes of body bytes.
  enum class body_mode : std::uint8_t {
    buffer,   ///< appended to the `body` string of execute()
    stream,   ///< handed out one piece at a time (event::body_piece), as views into the buffer
    discard,  ///< dropped (an answer was given before the body was read)
  };
  struct result {
    event what;
    std::size_t consumed;  ///< bytes of the input used
  };

  explicit request_parser(const parser_limits& limits);
  request_parser(const request_parser&) = delete;
  request_parser& operator=(const request_parser&) = delete;

  /// Parses buffer[begin, end). Body bytes are appended to `body`. Offsets are
  /// relative to `buffer`, which must keep the current message's head in place
  /// (or be moved with rebase()).
  result execute(const char* buffer, std::size_t begin, std::size_t end, std::string& body) noexcept;

  /// Tells the parser the peer closed its side; true if that ends a message cleanly.
  bool finish() noexcept;

  /// Back to the state of a new connection's parser: connections hand parsers
  /// on through their worker's pool between messages.
  void reset() noexcept;

  /// The current message's body limit (from head_complete on; it starts as
  /// the server's max_body_bytes): a body growing past it fails with
  /// error::body_too_large as its bytes arrive. The Content-Length check is
  /// the caller's, at head_complete (content_length()), so that a route may
  /// raise or lower the limit first.
  void set_body_limit(std::uint64_t limit) noexcept { body_limit_ = limit; }
  std::uint64_t body_limit() const noexcept { return body_limit_; }
  /// How the rest of the current message's body is handled (buffer until set).
  void set_body_mode(body_mode m) noexcept { body_mode_ = m; }
  /// The piece of event::body_piece: a view into the buffer given to execute().
  std::string_view piece() const noexcept { return piece_; }
  /// Body bytes of the current message so far (de-chunked).
  std::uint64_t body_bytes() const noexcept { return body_bytes_; }

  /// The buffer moved `delta` bytes towards its start (compaction).
  void rebase(std::size_t delta) noexcept;

  /// Whether some bytes of a message have been parsed and the message is not complete.
  bool in_message() const noexcept { return in_message_; }
  /// Whether the current message's head is complete (the body is being read).
  bool head_done() const noexcept { return head_done_; }
  /// Where the current message starts in the buffer.
  std::size_t message_start() const noexcept { return message_start_; }
  /// Where the current message's head ends (valid once head_done()).
  std::size_t head_end() const noexcept { return head_end_; }

  // The parsed head (valid from head_complete / message_complete until the next message).
  stet::method method() const noexcept { return method_; }
  std::string_view method_name() const noexcept;
  span target() const noexcept { return target_; }
  std::span<const field_span> fields() const noexcept { return {fields_.data(), field_count_}; }
  unsigned version() const noexcept { return version_; }
  /// From stet's own reading of the Connection tokens: HTTP/1.1 unless `close`,
  /// HTTP/1.0 only with `keep-alive` (and no `close`).
  bool keep_alive() const noexcept { return keep_alive_; }
  bool expects_continue() const noexcept { return expect_continue_; }
  /// A CONNECT, or an Upgrade field that Connection names (RFC 9110 7.8).
  bool is_upgrade() const noexcept { return upgrade_; }
  /// Where in fields() the Host field is, found while the head was checked
  /// (there is at most one), or no_field.
  std::size_t host_field() const noexcept { return host_field_; }
  static constexpr std::size_t no_field = static_cast<std::size_t>(-1);
  std::uint64_t content_length() const noexcept { return content_length_; }

  stet::error failure() const noexcept { return failure_; }

 private:
  static int on_message_begin(llhttp_t*) noexcept;
  static int on_url(llhttp_t*, const char*, std::size_t) noexcept;
  static int on_url_complete(llhttp_t*) noexcept;
  static int on_header_field(llhttp_t*, const char*, std::size_t) noexcept;
  static int on_header_field_complete(llhttp_t*) noexcept;
  static int on_header_value(llhttp_t*, const char*, std::size_t) noexcept;
  static int on_header_value_complete(llhttp_t*) noexcept;
  static int on_headers_complete(llhttp_t*) noexcept;
  static int on_body(llhttp_t*, const char*, std::size_t) noexcept;
  static int on_chunk_extension_name(llhttp_t*, const char*, std::size_t) noexcept;
  static int on_chunk_extension_name_complete(llhttp_t*) noexcept;
  static int on_chunk_extension_value(llhttp_t*, const char*, std::size_t) noexcept;
  static int on_chunk_extension_value_complete(llhttp_t*) noexcept;
  static int on_message_complete(llhttp_t*) noexcept;
  static const llhttp_settings_t& settings() noexcept;

  struct run_result {
    llhttp_errno_t code;
    const char* stop;  // where llhttp stopped: the end, or the error or pause position
  };
  // Where a chunk extension's value stands (a token or a quoted-string).
  enum class extension_value : std::uint8_t { empty, token, quoted, closed };
  // Where a quoted extension value that stet reads itself stands (read_quoted).
  enum class quoted_value : std::uint8_t { none, open, escaped };

  run_result run(const char* data, std::size_t length) noexcept;
  bool extension_bytes_ok(std::size_t length) noexcept;
  bool extension_value_byte(char c) noexcept;
  const char* read_quoted(const char* at, const char* end) noexcept;
  int fail(stet::error e) noexcept;
  result refuse(stet::error e, std::size_t consumed) noexcept;
  result paused(std::size_t begin, std::size_t consumed, char before_last) noexcept;
  static bool looks_like_other_version(const char* message, std::size_t length) noexcept;
  bool head_bytes_ok(const char* at, std::size_t length) noexcept;
  span extend(span s, const char* at, std::size_t length) const noexcept;
  struct framing_fields;  // what a head's Content-Length and Transfer-Encoding said
  int check_head() noexcept;
  int check_framing(const framing_fields& f) noexcept;
  stet::error classify(llhttp_errno_t code, const char* message, std::size_t length) const noexcept;
  std::string_view view(span s) const noexcept;

  llhttp_t parser_{};
  parser_limits limits_;
  const char* buffer_ = nullptr;
  const char* buffer_end_ = nullptr;  // the end of what this execute() was given
  std::string* body_ = nullptr;
  std::size_t message_start_ = 0;
  std::size_t head_end_ = 0;
  std::size_t trailer_bytes_ = 0;
  std::size_t extension_name_bytes_ = 0;  // of the chunk extension being parsed
  extension_value extension_value_ = extension_value::empty;
  bool separator_owed_ = false;               // llhttp swallowed a ';' between extensions; run() hands it one
  bool value_follows_ = false;                // the last extension name ended at '='
  bool value_owed_ = false;                   // paused before an extension value: run() looks at its first byte
  quoted_value quoted_ = quoted_value::none;  // a quoted value run() is reading across reads

  bool in_message_ = false;
  bool refused_ = false;         // a callback of ours stopped the parse; failure_ says why
  bool paused_at_head_ = false;  // the current message paused after its head (it has a body)
  bool chunked_ = false;         // the current message's body is chunked: its trailers' empty line ends it
  char last_byte_ = '\0';        // the last byte consumed before this execute() (body bytes leave the buffer)
  bool head_done_ = false;
  bool target_done_ = false;
  bool field_open_ = false;
  bool value_open_ = false;
  bool keep_alive_ = true;
  bool expect_continue_ = false;
  bool upgrade_ = false;
  stet::method method_ = stet::method::get;
  unsigned version_ = 11;
  std::uint64_t content_length_ = 0;
  std::uint64_t body_limit_ = 0;
  std::uint64_t body_bytes_ = 0;
  body_mode body_mode_ = body_mode::buffer;
  std::string_view piece_;
  bool piece_ready_ = false;  // on_body paused llhttp to hand out piece_
  span target_;
  std::vector<field_span> fields_;  // capacity max_header_count, reserved once
  std::size_t field_count_ = 0;
  std::size_t host_field_ = no_field;
  stet::error failure_ = stet::error::bad_request;
};

}  // namespace stet::detail
