#pragma once
/// @file
/// multipart/form-data request bodies (RFC 7578; boundaries per RFC 2046),
/// parsed as they stream in: a part's data is handed out in pieces as it
/// arrives, never gathered whole.

#include <stet/error.hpp>
#include <stet/status.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <system_error>

namespace stet {

/// What a multipart_parser accepts. The route's body limit, enforced by the
/// connection, usually bounds the body first; these bound what a body may hold.
struct multipart_options {
  /// Parts in the body; one more is error::too_many_multipart_parts (413).
  std::size_t max_parts = 1000;
  /// One part's header section, its closing blank line included (transport
  /// padding after a boundary counts too); more is
  /// error::multipart_header_too_large (413: it is content, not the request's
  /// header section, so 431 would mislead). Allocated (twice: as read, and
  /// for decoded names) once per parser.
  std::size_t max_header_bytes = 8 * 1024;
  /// Header fields in one part (browsers send two); more is
  /// error::multipart_header_too_large. Allocated once per parser.
  std::size_t max_header_count = 16;
  /// One part's data; more is error::multipart_part_too_large (413).
  std::uint64_t max_part_bytes = std::uint64_t{8} << 30;
  /// Everything fed, preamble and epilogue included; more is
  /// error::body_too_large (413).
  std::uint64_t max_total_bytes = std::uint64_t{8} << 30;
};

/// The earlier name (#26: option structs are named *_options): deprecated,
/// removed in the next release.
using multipart_limits [[deprecated("renamed multipart_options")]] = multipart_options;

/// One header field of a part as sent: the name's case is kept, the value has
/// no surrounding whitespace.
struct multipart_header {
  std::string_view name;   ///< as sent, case kept
  std::string_view value;  ///< without surrounding whitespace
};

/// What one part's headers say.
/// @note Views into the parser's header buffer: valid until the parser reports
/// the next part_begin (or is destroyed). Moving the parser keeps them valid.
struct multipart_part {
  /// 0 for the first part.
  std::size_t index = 0;
  /// Content-Disposition's `name` (RFC 7578 4.2), unquoted; never empty.
  /// Browsers write `"` as %22 and CR/LF as %0D/%0A; those are not decoded.
  std::string_view name;
  /// Content-Disposition's `filename`, unquoted, *unsanitised* (pass it to
  /// sanitize_filename() before using it as a path). An RFC 5987
  /// `filename*=UTF-8''...` (or US-ASCII) takes precedence when it decodes.
  /// nullopt when neither is sent; an empty value (a file input left empty)
  /// is an empty view.
  std::optional<std::string_view> filename;
  /// The part's Content-Type value; empty when absent (RFC 7578: text/plain).
  std::string_view content_type;
  /// Every header field of the part, in order.
  std::span<const multipart_header> headers;

  /// Whether the part carries a filename (a file input), even an empty one.
  bool is_file() const noexcept { return filename.has_value(); }
  /// The first header named `field` (ASCII case-insensitive); nullopt if absent.
  std::optional<std::string_view> header(std::string_view field) const noexcept;
};

/// Why a multipart body was refused.
struct multipart_error {
  /// A stet::error multipart value, error::body_too_large or
  /// error::unsupported_media_type; a default-constructed error holds none.
  std::error_code code;
  /// What exactly was wrong, in a few words (a static string; empty when none).
  std::string_view detail;
  /// Where in the body (bytes fed before the offending byte) it was noticed.
  std::uint64_t offset = 0;

  /// True when there is an error.
  explicit operator bool() const noexcept { return static_cast<bool>(code); }
  /// The status to answer with: 400, 413 or 415 (200 when there is no error).
  stet::status status() const noexcept;
  /// "<code's message>: <detail> (at byte N)", for a text or JSON error body;
  /// without the position for an error of the Content-Type (no usable
  /// boundary, not multipart/form-data), which no body byte caused.
  std::string message() const;
};

/// The boundary parameter of a multipart/form-data Content-Type value, or why
/// there is none: error::unsupported_media_type (415) when the media type is
/// not multipart/form-data, error::bad_multipart_boundary (400) when the
/// boundary is missing, given twice, empty, longer than 70 characters, not
/// made of RFC 2046 bchars, or ends in a space. Quoted or not; a quoted one
/// may not hold a backslash (none is a bchar).
/// @note On success `boundary` views `content_type`.
struct multipart_boundary_result {
  std::string_view boundary;  ///< without quotes; empty on error
  multipart_error error;      ///< why there is none
};
/// See multipart_boundary_result.
multipart_boundary_result multipart_boundary(std::string_view content_type) noexcept;

/// What next() produced.
enum class multipart_event_kind : std::uint8_t {
  need_more,   ///< the piece is used up: release it, then feed() the next or finish()
  part_begin,  ///< a part's headers were read: see multipart_parser::part()
  part_data,   ///< some of the current part's data: multipart_event::data
  part_end,    ///< the current part is complete
  done,        ///< the final boundary was read; the rest (epilogue) is ignored
  failed,      ///< the body is refused: see multipart_parser::error()
};

/// One step of the parse.
struct multipart_event {
  multipart_event_kind kind = multipart_event_kind::need_more;  ///< what happened
  /// part_data only: the bytes, never empty. A view into the piece last fed,
  /// or into the parser for bytes it held back from an earlier piece.
  /// @note Valid until the caller releases that piece (which it may do once
  /// next() has returned need_more) and while the parser lives.
  std::string_view data;
};

/// A streaming multipart/form-data parser: feed() the body in pieces of any
/// size, call next() until it returns need_more, release the piece, repeat;
/// call finish() at the end of the body. Events come in order: part_begin,
/// part_data* , part_end for each part, then done (or failed at any point).
/// done and failed are sticky: next() keeps returning them, and any further
/// input is ignored. consume() runs that loop with a visitor.
///
/// It copies only a part's header section (bounded, into a buffer allocated at
/// construction) and at most the delimiter's length minus one bytes
/// (boundary + 3) at the end of a piece, which could be the start of a
/// delimiter split across pieces; everything else is handed out as views. No
/// allocation after construction.
///
/// Grammar (RFC 2046 5.1.1): the preamble before the first boundary line and
/// the epilogue after the last are ignored; a boundary line is `--boundary`
/// at the start of the body or after CRLF, then optional spaces and tabs
/// (transport padding), then CRLF (a part follows) or `--` (the end). A match
/// of the whole boundary at a line start is a boundary line even when other
/// bytes follow it (5.1.1's note to implementors); those bytes are then an
/// error. Lines end in CRLF: as stet refuses bare LF in request heads, a bare
/// LF or CR after a boundary or in a part header is error::bad_multipart, and
/// a body delimited by bare LFs never matches its boundary
/// (error::multipart_truncated). A part's header section ends with an empty
/// line, also when it has no data; header fields are `token ":" value` with no
/// obs-fold. Each part needs `Content-Disposition: form-data` with a non-empty
/// `name` (error::multipart_part_without_name otherwise); a second
/// Content-Disposition or Content-Type, or a repeated name/filename
/// parameter, is error::bad_multipart (parsers that picked different copies
/// would disagree on what was sent). Inside a quoted parameter `\"` and `\\`
/// are escapes and any other backslash is kept (old browsers send Windows
/// paths unescaped). A body of only a final boundary has no parts and is done.
class multipart_parser {
 public:
  /// A parser for a body whose Content-Type is `content_type`; when that has
  /// no valid boundary (multipart_boundary()) the parser starts failed.
  /// @throws std::bad_alloc for its two buffers.
  explicit multipart_parser(std::string_view content_type, multipart_options limits = {});
  /// Moving keeps every view the parser gave valid (its buffers move with it).
  multipart_parser(multipart_parser&&) noexcept = default;
  /// As the move constructor.
  multipart_parser& operator=(multipart_parser&&) noexcept = default;
  multipart_parser(const multipart_parser&) = delete;
  multipart_parser& operator=(const multipart_parser&) = delete;
  ~multipart_parser();

  /// The next piece of the body, which must stay alive and unchanged until
  /// next() returns need_more. Call it first or after need_more; fed earlier,
  /// the parser fails (a caller bug, reported as error::bad_request). Empty
  /// pieces are fine. After done or failed it is ignored.
  void feed(std::string_view piece) noexcept;
  /// The body has ended: next() then reports done or an error, never need_more.
  /// Call it after need_more.
  void finish() noexcept;
  /// The next event; see multipart_event_kind.
  multipart_event next() noexcept;

  /// Feeds `piece` and calls `visit(event)` for each event until the piece is
  /// used up; returns need_more, done or failed. `visit` sees done or failed
  /// once (if they happen now), never need_more.
  template <typename Visit>
  multipart_event_kind consume(std::string_view piece, Visit&& visit) {
    feed(piece);
    return drain(visit);
  }
  /// finish() and the remaining events, as consume(); returns done or failed.
  template <typename Visit>
  multipart_event_kind finish(Visit&& visit) {
    finish();
    return drain(visit);
  }

  /// False once failed (including a bad boundary at construction).
  explicit operator bool() const noexcept { return !error_; }
  /// Why the body was refused; empty while it is not.
  const multipart_error& error() const noexcept { return error_; }
  /// The current part (the last one begun); index 0 and empty before the first.
  const multipart_part& part() const noexcept { return part_; }
  /// Parts begun so far.
  std::size_t part_count() const noexcept { return part_count_; }
  /// Bytes fed so far.
  std::uint64_t bytes_fed() const noexcept { return fed_; }
  /// Whether the final boundary has been read.
  bool done() const noexcept { return state_ == state::done; }
  /// The boundary (without the leading "--"); empty if there is none.
  std::string_view boundary() const noexcept;

 private:
  enum class state : std::uint8_t { preamble, boundary_line, headers, data, data_end, done, failed };
  enum class line_state : std::uint8_t { start, dash, padding, cr };
  struct scan_result {
    std::string_view data;
    bool found;
  };

  template <typename Visit>
  multipart_event_kind drain(Visit& visit) {
    for (;;) {
      const multipart_event e = next();
      if (e.kind == multipart_event_kind::need_more) return e.kind;
      visit(e);
      if (e.kind == multipart_event_kind::done || e.kind == multipart_event_kind::failed) return e.kind;
    }
  }

  std::string_view delimiter() const noexcept { return {buffer_.get(), delimiter_size_}; }
  char* header_area() const noexcept { return buffer_.get() + delimiter_size_; }
  std::uint64_t offset() const noexcept { return fed_ - (piece_.size() - pos_); }
  scan_result scan() noexcept;
  std::optional<multipart_event> in_preamble() noexcept;
  std::optional<multipart_event> in_boundary_line() noexcept;
  std::optional<multipart_event> in_headers() noexcept;
  std::optional<multipart_event> in_data() noexcept;
  multipart_event begin_part(std::size_t block_end) noexcept;
  multipart_event used_up() noexcept;
  multipart_event fail(stet::error code, std::string_view detail) noexcept;

  multipart_options limits_;
  std::unique_ptr<char[]> buffer_;  // the delimiter "\r\n--boundary", the header area, scratch for decoding
  std::unique_ptr<multipart_header[]> header_slots_;
  std::size_t delimiter_size_ = 0;
  std::string_view piece_;
  std::size_t pos_ = 0;
  std::size_t matched_ = 0;  // delimiter bytes matched at the end of the input so far (held back)
  std::size_t header_size_ = 0;
  std::size_t padding_ = 0;
  std::size_t part_count_ = 0;
  std::uint64_t fed_ = 0;
  std::uint64_t part_bytes_ = 0;
  state state_ = state::preamble;
  line_state line_ = line_state::start;
  bool finished_ = false;
  multipart_part part_;
  multipart_error error_;
};

/// A filename from a part (multipart_part::filename) made safe to use as one
/// name inside a directory: only the last component of a slash- or
/// backslash-separated path is kept; control characters (NUL included) and DEL
/// become an underscore; leading dots and spaces and trailing dots and spaces are
/// removed (so never ".", ".." or a hidden file); the result is at most
/// `max_bytes` long (raised to 32 if smaller): the extension, when 16 bytes or
/// shorter, is kept and the stem is cut at a UTF-8 character boundary. Bytes
/// are not otherwise checked (Linux names are bytes; Windows' reserved names
/// such as CON are not handled). When nothing is left, `fallback` is returned
/// as given (the caller's choice, not sanitised).
std::string sanitize_filename(std::string_view raw, std::string_view fallback = "upload", std::size_t max_bytes = 255);

}  // namespace stet
