#include "http/request_parser.hpp"

#include "http/host_syntax.hpp"
#include "http/token.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>

namespace stet::detail {
namespace {

request_parser& self(llhttp_t* p) noexcept { return *static_cast<request_parser*>(p->data); }

stet::method from_llhttp(std::uint8_t m) noexcept {
  switch (m) {
    case HTTP_GET: return stet::method::get;
    case HTTP_HEAD: return stet::method::head;
    case HTTP_POST: return stet::method::post;
    case HTTP_PUT: return stet::method::put;
    case HTTP_DELETE: return stet::method::delete_;
    case HTTP_PATCH: return stet::method::patch;
    case HTTP_OPTIONS: return stet::method::options;
    case HTTP_TRACE: return stet::method::trace;
    case HTTP_CONNECT: return stet::method::connect;
    default: return stet::method::other;
  }
}

// The options of the Connection fields (RFC 9110 7.6.1): a comma-separated
// list of case-insensitive tokens with OWS (SP or HTAB) around each. Read by
// stet rather than taken from llhttp 8.1, which ignores `close` followed by a tab.
struct connection_options {
  bool close = false;
  bool keep_alive = false;
  bool upgrade = false;

  void read(std::string_view list) noexcept {
    for_each_list_element(list, [this](std::string_view option) {
      close = close || iequals(option, "close");
      keep_alive = keep_alive || iequals(option, "keep-alive");
      upgrade = upgrade || iequals(option, "upgrade");
    });
  }
};

// llhttp skips empty lines before a request line (RFC 9112 2.2); a message
// starts before them only if they came in the same read as its first byte.
std::string_view skip_empty_lines(std::string_view message) noexcept {
  return message.substr(std::min(message.find_first_not_of("\r\n"), message.size()));
}

// RFC 9112 2.2 lets a recipient take a bare LF for CRLF; stet does not, since
// a peer that disagrees sees other message boundaries. llhttp refuses most bare
// LFs but takes one after the request line and as a head's last line. A field
// value never holds an LF (on_header_value), so the head's LFs are those ending
// its lines: each one before a field name is checked where the name starts
// (on_header_field), and the last two here, where the head ends.
bool ends_in_crlf_crlf(std::string_view head) noexcept {
  return head.size() >= 4 && head.substr(head.size() - 4) == "\r\n\r\n";
}

bool has_bare_lf(std::string_view bytes) noexcept {
  for (std::size_t lf = bytes.find('\n'); lf != std::string_view::npos; lf = bytes.find('\n', lf + 1)) {
    if (lf == 0 || bytes[lf - 1] != '\r') return true;
  }
  return false;
}

// Whether a word has a zero byte (exact: no false positives when only asked "any").
constexpr std::uint64_t zero_byte_bits(std::uint64_t v) noexcept {
  return (v - 0x0101010101010101u) & ~v & 0x8080808080808080u;
}

// Whether a value piece holds a CR or an LF, eight bytes at a time (values are
// short, and a call to memchr per byte class cost more than the scan).
bool has_line_break(const char* at, std::size_t length) noexcept {
  if (length < 8) {
    bool found = false;
    for (std::size_t i = 0; i < length; ++i) found |= at[i] == '\n' || at[i] == '\r';
    return found;
  }
  constexpr std::uint64_t lf = 0x0a0a0a0a0a0a0a0au;
  constexpr std::uint64_t cr = 0x0d0d0d0d0d0d0d0du;
  std::uint64_t hits = 0;
  // Whole words, the last one ending at the last byte (it may overlap the one before).
  for (std::size_t i = 0;; i += 8) {
    const std::size_t from = i + 8 <= length ? i : length - 8;
    std::uint64_t v;
    std::memcpy(&v, at + from, 8);
    hits |= zero_byte_bits(v ^ lf) | zero_byte_bits(v ^ cr);
    if (from + 8 >= length) break;
  }
  return hits != 0;
}

}  // namespace

// The framing fields of a head (RFC 9112 6.1, 6.3), judged once all are read.
struct request_parser::framing_fields {
  bool content_length = false;
  bool transfer_encoding = false;
  std::string_view last_coding;
  std::size_t chunked_count = 0;
  bool unknown_coding = false;

  void read_transfer_encoding(std::string_view list) noexcept {
    transfer_encoding = true;
    for_each_list_element(list, [this](std::string_view coding) {
      last_coding = coding;
      if (iequals(coding, "chunked")) {
        ++chunked_count;
      } else {
        unknown_coding = true;
      }
    });
  }
};

request_parser::request_parser(const parser_limits& limits) : limits_(limits) {
  fields_.resize(limits.max_header_count + 1);
  llhttp_init(&parser_, HTTP_REQUEST, &settings());
  parser_.data = this;
  // llhttp 8.1 rejects HTTP/1.2 outright; RFC 9110 2.5 says to answer a higher
  // minor version as the highest we speak. Versions are checked in on_headers_complete.
  parser_.lenient_flags |= LENIENT_VERSION;
  // Keep-alive is stet's decision (check_head); llhttp's own reading of
  // Connection must not make it refuse the next request of a kept connection.
  parser_.lenient_flags |= LENIENT_KEEP_ALIVE;
}

const llhttp_settings_t& request_parser::settings() noexcept {
  static const llhttp_settings_t instance = [] {
    llhttp_settings_t s;
    llhttp_settings_init(&s);
    s.on_message_begin = &on_message_begin;
    s.on_url = &on_url;
    s.on_url_complete = &on_url_complete;
    s.on_header_field = &on_header_field;
    s.on_header_field_complete = &on_header_field_complete;
    s.on_header_value = &on_header_value;
    s.on_header_value_complete = &on_header_value_complete;
    s.on_headers_complete = &on_headers_complete;
    s.on_body = &on_body;
    s.on_chunk_extension_name = &on_chunk_extension_name;
    s.on_chunk_extension_name_complete = &on_chunk_extension_name_complete;
    s.on_chunk_extension_value = &on_chunk_extension_value;
    s.on_chunk_extension_value_complete = &on_chunk_extension_value_complete;
    s.on_message_complete = &on_message_complete;
    return s;
  }();
  return instance;
}

request_parser::result request_parser::execute(const char* buffer, std::size_t begin, std::size_t end,
                                               std::string& body) noexcept {
  buffer_ = buffer;
  body_ = &body;
  if (!in_message_) message_start_ = begin;

  const char* data = buffer + begin;
  buffer_end_ = buffer + end;
  const auto [code, stop] = run(data, end - begin);
  const auto consumed = static_cast<std::size_t>(stop - data);
  const char before_last = consumed >= 2 ? data[consumed - 2] : last_byte_;
  if (consumed > 0) last_byte_ = data[consumed - 1];
  if (code == HPE_OK) {
    // Everything consumed and the head still open: the partial head must fit too.
    if (in_message_ && !head_done_ && end - message_start_ > limits_.max_header_bytes) {
      const bool target_too_long = !target_done_ && end - message_start_ > limits_.max_target_bytes;
      fail(target_too_long ? error::target_too_long : error::header_too_large);
      return {event::failed, end - begin};
    }
    return {event::need_more, end - begin};
  }

  if (code == HPE_PAUSED && piece_ready_) {
    piece_ready_ = false;
    llhttp_resume(&parser_);
    return {event::body_piece, consumed};
  }
  if (code == HPE_PAUSED) return paused(begin, consumed, before_last);
  if (code == HPE_PAUSED_UPGRADE) {
    // Upgrade is not supported: the request was answered as a plain one and the
    // connection closes after it (the peer may already be sending another protocol).
    llhttp_resume_after_upgrade(&parser_);
    keep_alive_ = false;
    if (!ends_in_crlf_crlf({buffer + message_start_, begin + consumed - message_start_})) {
      return refuse(error::bad_request, consumed);
    }
    return {event::message_complete, consumed};
  }
  // A callback of ours that refused the input has already said why; only a
  // version refusal is re-checked against the request line (e.g. "GET /\r\n"
  // parses as HTTP/0.9 but is a malformed line, not another version).
  // llhttp's own errors are classified from the bytes up to the offending one
  // only: whatever came after it in this read would make the status depend on
  // how the peer's bytes were cut into reads ("PUST /" must be 501 whether or
  // not the space has arrived yet).
  const std::size_t seen = std::min(begin + consumed + 1, end) - message_start_;
  if (!refused_) failure_ = classify(code, buffer + message_start_, seen);
  // Had a read ended inside a field name, on_header_field would have seen its
  // start and refused a bare LF ending the line before (400 bad_request); in one
  // read llhttp may refuse a byte of the name first, and it refuses a byte after
  // a value's bare LF only once that byte has come. The earlier fault wins: any
  // bare LF in the head before the refused byte (trailers are not checked so).
  if (!refused_ && failure_ == error::bad_header && !head_done_ &&
      has_bare_lf(skip_empty_lines({buffer + message_start_, begin + consumed - message_start_}))) {
    failure_ = error::bad_request;
  }
  if (failure_ == error::bad_version && !looks_like_other_version(buffer + message_start_, end - message_start_)) {
    failure_ = error::bad_request;
  }
  return {event::failed, consumed};
}

// llhttp_execute(), and where it stopped. It also steps over llhttp 8.1's two
// chunk-extension gaps as often as they occur: the ';' after a token value
// (see on_chunk_extension_value), and quoted values, which stet reads itself
// (read_quoted) because llhttp 8.1 refuses a quoted-pair's backslash outright
// (its quoted-value state has no escape), though RFC 9112 7.1.1 allows one.
// llhttp then parses a stand-in `""` in the value's place and goes on at the
// real closing quote, so what may follow it is still llhttp's to check.
request_parser::run_result request_parser::run(const char* data, std::size_t length) noexcept {
  static constexpr char separator = ';';
  static constexpr std::string_view stand_in = "\"\"";
  const char* const end = data + length;
  const char* at = data;
  llhttp_errno_t code = HPE_OK;
  while (true) {
    if (quoted_ != quoted_value::none) {
      const char* const after = read_quoted(at, end);
      if (refused_) return {HPE_USER, after};
      if (quoted_ != quoted_value::none) return {HPE_OK, end};  // the value goes on in the next read
      code = llhttp_execute(&parser_, stand_in.data(), stand_in.size());
      if (code != HPE_OK) return {code, after};
      at = after;
    }
    code = llhttp_execute(&parser_, at, static_cast<std::size_t>(end - at));
    if (code != HPE_PAUSED || !(separator_owed_ || value_owed_)) break;
    const char* const rest = llhttp_get_error_pos(&parser_);
    llhttp_resume(&parser_);
    if (separator_owed_) {
      separator_owed_ = false;  // `rest` is just after the real ';'
      code = llhttp_execute(&parser_, &separator, 1);
      if (code != HPE_OK) return {code, rest};
      at = rest;
    } else {
      value_owed_ = false;  // `rest` is the value's first byte, always in this read
      at = rest;
      if (*at == '"') {
        quoted_ = quoted_value::open;
        ++at;
      }
    }
  }
  return {code, code == HPE_OK ? end : llhttp_get_error_pos(&parser_)};
}

// The bytes of a quoted extension value after its opening quote (RFC 9110
// 5.6.4: qdtext and quoted-pairs, both only HTAB, SP, VCHAR and obs-text, so
// never a CR, an LF or another control byte), up to and including the closing
// quote: returns where it stopped (`end` while the value is still open). A
// byte no quoted-string holds fails the parse (bad_chunk) and is where it stops.
const char* request_parser::read_quoted(const char* at, const char* end) noexcept {
  const char* p = at;
  for (; p < end && quoted_ != quoted_value::none; ++p) {
    const auto c = static_cast<unsigned char>(*p);
    if ((c < 0x20 && c != '\t') || c == 0x7f) {
      fail(error::bad_chunk);
      return p;
    }
    if (quoted_ == quoted_value::escaped) {
      quoted_ = quoted_value::open;
    } else if (c == '\\') {
      quoted_ = quoted_value::escaped;
    } else if (c == '"') {
      quoted_ = quoted_value::none;
    }
  }
  (void)extension_bytes_ok(static_cast<std::size_t>(p - at));  // beyond the budget: failed, run() stops
  return p;
}

// A head just ended (with a body to follow), or a whole message did.
request_parser::result request_parser::paused(std::size_t begin, std::size_t consumed, char before_last) noexcept {
  llhttp_resume(&parser_);
  const std::size_t at = begin + consumed;
  const std::string_view head(buffer_ + message_start_, at - message_start_);
  if (in_message_) {
    head_end_ = at;
    if (head.size() > limits_.max_header_bytes) return refuse(error::header_too_large, consumed);
    if (!ends_in_crlf_crlf(head)) return refuse(error::bad_request, consumed);
    return {event::head_complete, consumed};
  }
  if (!paused_at_head_) {
    // Without a body the message ends where its head ends: the head's exact size
    // (final CRLF included) is known only now.
    if (head.size() > limits_.max_header_bytes) return refuse(error::header_too_large, consumed);
    if (!ends_in_crlf_crlf(head)) return refuse(error::bad_request, consumed);
  }
  // The empty line after the trailers ends a chunked message; llhttp takes a
  // bare LF there too. Its CR may have come in the previous read.
  if (chunked_ && before_last != '\r') return refuse(error::bad_chunk, consumed);
  return {event::message_complete, consumed};
}

request_parser::result request_parser::refuse(stet::error e, std::size_t consumed) noexcept {
  fail(e);
  return {event::failed, consumed};
}

bool request_parser::finish() noexcept { return llhttp_finish(&parser_) == HPE_OK; }

void request_parser::reset() noexcept {
  llhttp_reset(&parser_);  // keeps the settings, data pointer and lenient flags
  in_message_ = false;
  head_done_ = false;
  paused_at_head_ = false;
  chunked_ = false;
  refused_ = false;
  last_byte_ = '\0';
  piece_ready_ = false;
  body_mode_ = body_mode::buffer;
  separator_owed_ = false;
  value_follows_ = false;
  value_owed_ = false;
  quoted_ = quoted_value::none;
  message_start_ = 0;
  head_end_ = 0;
  keep_alive_ = true;
}

void request_parser::rebase(std::size_t delta) noexcept {
  message_start_ -= delta;
  if (head_done_) head_end_ -= delta;
}

std::string_view request_parser::method_name() const noexcept {
  return llhttp_method_name(static_cast<llhttp_method_t>(parser_.method));
}

stet::error request_parser::classify(llhttp_errno_t code, const char* message, std::size_t length) const noexcept {
  switch (code) {
    case HPE_INVALID_METHOD: {
      // An unknown method is 501 (RFC 9110 9.1); bytes that are no method at all
      // are 400. `length` ends at the byte llhttp refused: a method-like start is
      // token bytes up to it, the refused byte being a token byte or the space
      // after a non-empty token.
      const std::string_view seen = skip_empty_lines({message, length});
      const std::string_view before = seen.substr(0, seen.size() - 1);
      const char refused = seen.empty() ? ' ' : seen.back();
      const bool token_so_far = std::all_of(before.begin(), before.end(), is_tchar);
      const bool method_like = token_so_far && (is_tchar(refused) || (refused == ' ' && !before.empty()));
      return method_like ? error::bad_method : error::bad_request;
    }
    case HPE_INVALID_VERSION:
      return looks_like_other_version(message, length) ? error::bad_version : error::bad_request;
    case HPE_INVALID_URL: return error::bad_target;
    case HPE_INVALID_CONTENT_LENGTH:
    case HPE_UNEXPECTED_CONTENT_LENGTH: return error::bad_content_length;
    case HPE_INVALID_TRANSFER_ENCODING: return error::bad_transfer_encoding;
    case HPE_INVALID_CHUNK_SIZE: return error::bad_chunk;
    case HPE_INVALID_HEADER_TOKEN: return error::bad_header;
    default: return head_done_ && code != HPE_INVALID_EOF_STATE ? error::bad_chunk : error::bad_request;
  }
}

// 505 is for a well-formed request line naming a version we do not speak
// (RFC 9110 15.6.6); anything else wrong in the request line is a 400.
bool request_parser::looks_like_other_version(const char* message, std::size_t length) noexcept {
  std::string_view line = skip_empty_lines({message, length});
  line = line.substr(0, line.find_first_of("\r\n"));
  const std::size_t space = line.rfind(' ');
  if (space == std::string_view::npos || line.find(' ') == space) return false;  // needs method SP target SP version
  const std::string_view version = line.substr(space + 1);
  return version.size() == 8 && version.substr(0, 5) == "HTTP/" &&
         std::isdigit(static_cast<unsigned char>(version[5])) && version[6] == '.' &&
         std::isdigit(static_cast<unsigned char>(version[7]));
}

int request_parser::fail(stet::error e) noexcept {
  failure_ = e;
  refused_ = true;
  return HPE_USER;
}

std::string_view request_parser::view(span s) const noexcept { return {buffer_ + message_start_ + s.offset, s.length}; }

span request_parser::extend(span s, const char* at, std::size_t length) const noexcept {
  if (s.length == 0) s.offset = static_cast<std::uint32_t>(at - (buffer_ + message_start_));
  s.length += static_cast<std::uint32_t>(length);
  return s;
}

// The head may not outgrow max_header_bytes, checked as the bytes arrive.
bool request_parser::head_bytes_ok(const char* at, std::size_t length) noexcept {
  if (head_done_) {
    trailer_bytes_ += length;
    return trailer_bytes_ <= limits_.max_header_bytes || fail(error::header_too_large) == 0;
  }
  const auto used = static_cast<std::size_t>(at + length - (buffer_ + message_start_));
  return used <= limits_.max_header_bytes || fail(error::header_too_large) == 0;
}

int request_parser::on_message_begin(llhttp_t* p) noexcept {
  request_parser& s = self(p);
  s.in_message_ = true;
  s.head_done_ = false;
  s.target_done_ = false;
  s.field_open_ = false;
  s.value_open_ = false;
  s.expect_continue_ = false;
  s.keep_alive_ = false;
  s.upgrade_ = false;
  s.target_ = {};
  s.field_count_ = 0;
  s.host_field_ = no_field;
  s.trailer_bytes_ = 0;
  s.extension_name_bytes_ = 0;
  s.extension_value_ = extension_value::empty;
  s.value_follows_ = false;
  s.value_owed_ = false;
  s.quoted_ = quoted_value::none;
  s.content_length_ = 0;
  s.failure_ = error::bad_request;
  s.refused_ = false;
  s.paused_at_head_ = false;
  s.chunked_ = false;
  s.body_->clear();
  s.body_limit_ = s.limits_.max_body_bytes;
  s.body_bytes_ = 0;
  s.body_mode_ = body_mode::buffer;
  s.piece_ready_ = false;
  return 0;
}

int request_parser::on_url(llhttp_t* p, const char* at, std::size_t length) noexcept {
  request_parser& s = self(p);
  s.target_ = s.extend(s.target_, at, length);
  if (s.target_.length > s.limits_.max_target_bytes) return s.fail(error::target_too_long);
  if (!s.head_bytes_ok(at, length)) return HPE_USER;
  return 0;
}

int request_parser::on_url_complete(llhttp_t* p) noexcept {
  self(p).target_done_ = true;
  return 0;
}

int request_parser::on_header_field(llhttp_t* p, const char* at, std::size_t length) noexcept {
  request_parser& s = self(p);
  if (!s.head_bytes_ok(at, length)) return HPE_USER;
  if (s.head_done_) return 0;  // trailer fields are counted, not kept
  if (!s.field_open_) {
    // The line before this one (the request line or a field) must end in CRLF;
    // both bytes are in the buffer, which keeps the head in place.
    if (at[-1] != '\n' || at[-2] != '\r') return s.fail(error::bad_request);
    if (s.field_count_ == s.limits_.max_header_count) return s.fail(error::too_many_headers);
    s.fields_[s.field_count_++] = field_span{};
    s.field_open_ = true;
  }
  field_span& f = s.fields_[s.field_count_ - 1];
  f.name = s.extend(f.name, at, length);
  return 0;
}

int request_parser::on_header_field_complete(llhttp_t* p) noexcept {
  request_parser& s = self(p);
  s.field_open_ = false;
  // RFC 9112 5.1: whitespace between name and colon must be refused (llhttp lets it through).
  if (!s.head_done_ && !is_token(s.view(s.fields_[s.field_count_ - 1].name))) return s.fail(error::bad_header);
  return 0;
}

int request_parser::on_header_value(llhttp_t* p, const char* at, std::size_t length) noexcept {
  request_parser& s = self(p);
  if (!s.head_bytes_ok(at, length)) return HPE_USER;
  // RFC 9112 5.2: obs-fold (a line break inside a value) is refused, never unfolded.
  if (has_line_break(at, length)) return s.fail(error::bad_header);
  if (s.head_done_) return 0;
  field_span& f = s.fields_[s.field_count_ - 1];
  // A value continues only where it left off (reads append to one buffer); a gap
  // means llhttp skipped an obs-fold line break inside the value.
  if (f.value.length != 0 && at != s.buffer_ + s.message_start_ + f.value.offset + f.value.length) {
    return s.fail(error::bad_header);
  }
  f.value = s.extend(f.value, at, length);
  s.value_open_ = true;
  return 0;
}

int request_parser::on_header_value_complete(llhttp_t* p) noexcept {
  self(p).value_open_ = false;
  return 0;
}

int request_parser::on_headers_complete(llhttp_t* p) noexcept {
  request_parser& s = self(p);
  s.head_done_ = true;
  s.method_ = from_llhttp(p->method);
  if (p->http_major != 1) return s.fail(error::bad_version);
  s.version_ = p->http_minor == 0 ? 10 : 11;
  s.content_length_ = (p->flags & F_CONTENT_LENGTH) ? p->content_length : 0;
  if (const int rc = s.check_head(); rc != 0) return rc;
  if (s.method_ == stet::method::connect) return 0;  // answered 501 by the connection, then closed
  s.chunked_ = (p->flags & F_CHUNKED) != 0;
  const bool has_body = s.chunked_ || s.content_length_ > 0;
  // Pause only when a body follows: the caller learns where the head ends (so
  // body bytes can be dropped from the buffer) and may send 100 Continue. A
  // request without a body needs no 100 (RFC 9110 10.1.1) and completes at once.
  s.paused_at_head_ = has_body;
  return has_body ? HPE_PAUSED : 0;
}

// Host, Expect, Connection and Upgrade, and the framing fields: those whose
// rules RFC 9110/9112 put on the server. One pass over the fields; no two of
// these names have the same length, so a field's length picks the one it can be.
int request_parser::check_head() noexcept {
  std::size_t hosts = 0;
  connection_options connection;
  bool upgrade_field = false;
  framing_fields framing;
  for (std::size_t i = 0; i < field_count_; ++i) {
    const std::string_view name = view(fields_[i].name);
    switch (name.size()) {
      case 4:
        if (!iequals(name, "host")) break;
        ++hosts;
        host_field_ = i;
        if (!valid_host(trim_ows(view(fields_[i].value)))) return fail(error::bad_request);
        break;
      case 6:
        // RFC 9110 10.1.1: an HTTP/1.0 request's 100-continue is ignored.
        if (!iequals(name, "expect") || version_ != 11) break;
        if (!iequals(trim_ows(view(fields_[i].value)), "100-continue")) return fail(error::expectation_failed);
        expect_continue_ = true;
        break;
      case 7: upgrade_field = upgrade_field || iequals(name, "upgrade"); break;
      case 10:
        if (iequals(name, "connection")) connection.read(view(fields_[i].value));
        break;
      case 14: framing.content_length = framing.content_length || iequals(name, "content-length"); break;
      case 17:
        if (iequals(name, "transfer-encoding")) framing.read_transfer_encoding(view(fields_[i].value));
        break;
      default: break;
    }
  }
  if (hosts > 1) return fail(error::duplicate_host);
  if (hosts == 0 && version_ == 11) return fail(error::missing_host);
  // RFC 9112 9.3: HTTP/1.1 persists unless told to close; HTTP/1.0 only when
  // asked to, and close wins over keep-alive (9.6: the server MUST close).
  keep_alive_ = !connection.close && (version_ == 11 || connection.keep_alive);
  // RFC 9110 7.8: an Upgrade field counts only when Connection names it.
  upgrade_ = method_ == stet::method::connect || (connection.upgrade && upgrade_field);
  return check_framing(framing);
}

// RFC 9112 6.1 and 6.3: the body length must be unambiguous, or the request is
// refused (request smuggling hides in the ambiguity).
int request_parser::check_framing(const framing_fields& f) noexcept {
  if (!f.transfer_encoding) return 0;
  if (f.content_length) return fail(error::bad_content_length);
  if (version_ == 10) return fail(error::bad_transfer_encoding);
  if (!iequals(f.last_coding, "chunked") || f.chunked_count != 1) return fail(error::bad_transfer_encoding);
  if (f.unknown_coding) return fail(error::unsupported_transfer_encoding);
  return 0;
}

// Chunk extensions carry nothing stet uses, but a peer could send them without
// end: they count against the same budget as trailers (RFC 9112 7.1.1). Each
// is `;name[=value]`, the name a token and the value a token or a
// quoted-string; llhttp checks the bytes of each class, stet what it lets
// through: an empty name or value, a quote inside a token, DEL in a quoted value.
bool request_parser::extension_bytes_ok(std::size_t length) noexcept {
  trailer_bytes_ += length;
  return trailer_bytes_ <= limits_.max_header_bytes || fail(error::bad_chunk) == 0;
}

int request_parser::on_chunk_extension_name(llhttp_t* p, const char* at, std::size_t length) noexcept {
  request_parser& s = self(p);
  s.extension_name_bytes_ += length;
  // The last piece of a name ends at the byte that ends it, always in this read.
  s.value_follows_ = at + length < s.buffer_end_ && at[length] == '=';
  return s.extension_bytes_ok(length) ? 0 : HPE_USER;
}

int request_parser::on_chunk_extension_name_complete(llhttp_t* p) noexcept {
  request_parser& s = self(p);
  if (s.extension_name_bytes_ == 0) return s.fail(error::bad_chunk);
  s.extension_name_bytes_ = 0;
  s.extension_value_ = extension_value::empty;
  if (!s.value_follows_) return 0;
  // llhttp calls this once the value's first byte is in: pause there, so run()
  // can read a quoted value itself.
  s.value_follows_ = false;
  s.value_owed_ = true;
  return HPE_PAUSED;
}

int request_parser::on_chunk_extension_value(llhttp_t* p, const char* at, std::size_t length) noexcept {
  request_parser& s = self(p);
  if (!s.extension_bytes_ok(length)) return HPE_USER;
  for (std::size_t i = 0; i < length; ++i) {
    if (!s.extension_value_byte(at[i])) return s.fail(error::bad_chunk);
  }
  // llhttp 8.1 consumes the ';' after a token value but then expects the line
  // to end (or another ';'), so "5;a=b;c=d" would be refused. This is the only
  // place a token value ends at a ';' in the buffer (a value cut by the end of
  // a read ends at buffer_end_): pause, and let run() hand llhttp the ';' it
  // expects before going on after the real one.
  if (s.extension_value_ == extension_value::token && at + length < s.buffer_end_ && at[length] == ';') {
    s.separator_owed_ = true;
    return HPE_PAUSED;
  }
  return 0;
}

int request_parser::on_chunk_extension_value_complete(llhttp_t* p) noexcept {
  request_parser& s = self(p);
  const extension_value v = s.extension_value_;
  s.extension_value_ = extension_value::empty;
  return v == extension_value::token || v == extension_value::closed ? 0 : s.fail(error::bad_chunk);
}

// One byte of an extension value: a token, or a quoted-string (of which
// llhttp only sees run()'s stand-in `""`; read_quoted() checks the real one).
bool request_parser::extension_value_byte(char c) noexcept {
  switch (extension_value_) {
    case extension_value::empty:
      extension_value_ = c == '"' ? extension_value::quoted : extension_value::token;
      return true;
    case extension_value::token: return c != '"';
    case extension_value::quoted:
      if (c == '"') extension_value_ = extension_value::closed;
      return c != '\x7f';
    case extension_value::closed: return false;
  }
  return false;
}

int request_parser::on_body(llhttp_t* p, const char* at, std::size_t length) noexcept {
  request_parser& s = self(p);
  // llhttp ends every execute() by reporting the open body span, empty when
  // the input ended where the last piece did: not a piece, nothing to pause for.
  if (length == 0) return 0;
  s.body_bytes_ += length;
  if (s.body_bytes_ > s.body_limit_) return s.fail(error::body_too_large);
  switch (s.body_mode_) {
    case body_mode::buffer: s.body_->append(at, length); return 0;
    case body_mode::discard: return 0;
    case body_mode::stream:
      // Paused after the piece: the caller hands it on before anything more
      // is parsed, so the sink's pace sets the reading pace.
      s.piece_ = {at, length};
      s.piece_ready_ = true;
      return HPE_PAUSED;
  }
  return 0;
}

int request_parser::on_message_complete(llhttp_t* p) noexcept {
  self(p).in_message_ = false;
  return HPE_PAUSED;
}

}  // namespace stet::detail
