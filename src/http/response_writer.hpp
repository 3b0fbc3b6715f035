#pragma once
// Serialises responses: status line and the preset Server/Date block from
// tables built once, then the handler's fields as they are (validated when set).

#include <stet/response.hpp>

#include "http/date_cache.hpp"

#include <cstdint>
#include <string>
#include <string_view>

namespace stet::detail {

/// How one response is framed on the wire.
struct framing {
  bool head_request = false;       ///< HEAD: headers as for GET, no body
  bool close = false;              ///< send Connection: close
  bool keep_alive_http10 = false;  ///< an HTTP/1.0 keep-alive: say so explicitly
  bool chunked = false;            ///< a streamed body in chunked coding (no Content-Length)
  bool no_content_length = false;  ///< HEAD of a compressed variant: its length is unknown, so none is sent
};

class response_writer {
 public:
  explicit response_writer(std::string_view server_name);

  /// Appends the status line and header section of `r` to `out`.
  void append_head(std::string& out, const response& r, const framing& how);
  /// Appends head and, unless HEAD or a bodiless status, the body.
  void append(std::string& out, const response& r, const framing& how);
  /// Whether the response's body goes on the wire at all.
  static bool sends_body(const response& r, const framing& how) noexcept {
    return !how.head_request && !status_forbids_body(r.status());
  }

  // Chunked transfer coding (RFC 9112 7.1) is framed here and nowhere else:
  // the head's Transfer-Encoding line above, the chunk lines below.
  /// Appends the size line of a chunk of `size` (> 0) bytes; its data follows.
  static void begin_chunk(std::string& out, std::size_t size);
  /// Appends the CRLF that ends a chunk's data.
  static void end_chunk(std::string& out) { out += "\r\n"; }
  /// Appends the last chunk (no trailers): the end of a chunked body.
  static void last_chunk(std::string& out) { out += "0\r\n\r\n"; }

  /// "HTTP/1.1 100 Continue\r\n\r\n".
  static std::string_view continue_line() noexcept { return "HTTP/1.1 100 Continue\r\n\r\n"; }

  date_cache& dates() noexcept { return dates_; }

 private:
  // "HTTP/1.1 200 OK\r\n" "Server: <name>\r\n" (if named) "Date: <date>\r\n": a
  // 200's first lines in one copy; other statuses take it after its status line.
  // The date is rewritten in place when the date cache has a new second.
  std::string preset_;
  std::size_t ok_line_size_ = 0;
  std::size_t date_offset_ = 0;
  std::uint64_t preset_refreshes_ = 0;  // dates_.refreshes() when preset_'s date was written
  date_cache dates_;
};

}  // namespace stet::detail
