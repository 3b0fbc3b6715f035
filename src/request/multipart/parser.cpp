#include <stet/multipart.hpp>

#include "http/token.hpp"
#include "request/multipart/part_head.hpp"

#include <algorithm>
#include <cstring>  // memmem, memrchr (GNU extensions; g++ defines _GNU_SOURCE)
#include <cstring>

namespace stet {
namespace {

constexpr std::string_view crlf = "\r\n";
constexpr std::string_view header_end = "\r\n\r\n";

std::size_t find_in(std::string_view haystack, std::string_view needle) noexcept {
  const void* hit = ::memmem(haystack.data(), haystack.size(), needle.data(), needle.size());
  if (hit == nullptr) return std::string_view::npos;
  return static_cast<std::size_t>(static_cast<const char*>(hit) - haystack.data());
}

// How many bytes at the end of `rest` are a proper prefix of `delimiter`. The
// delimiter's only CR is its first byte, so only the last CR in the final
// delimiter.size() - 1 bytes can start such a prefix.
std::size_t partial_match_at_end(std::string_view rest, std::string_view delimiter) noexcept {
  const std::size_t window = std::min(rest.size(), delimiter.size() - 1);
  const char* tail = rest.data() + rest.size() - window;
  const void* cr = ::memrchr(tail, '\r', window);
  if (cr == nullptr) return 0;
  const std::size_t held = static_cast<std::size_t>(rest.data() + rest.size() - static_cast<const char*>(cr));
  return std::memcmp(cr, delimiter.data(), held) == 0 ? held : 0;
}

}  // namespace

std::optional<std::string_view> multipart_part::header(std::string_view field) const noexcept {
  for (const multipart_header& h : headers) {
    if (detail::iequals(h.name, field)) return h.value;
  }
  return std::nullopt;
}

multipart_parser::multipart_parser(std::string_view content_type, multipart_options limits) : limits_(limits) {
  const multipart_boundary_result b = multipart_boundary(content_type);
  if (b.error) {
    error_ = b.error;
    state_ = state::failed;
    return;
  }
  delimiter_size_ = 4 + b.boundary.size();
  buffer_ = std::make_unique_for_overwrite<char[]>(delimiter_size_ + 2 + 2 * limits_.max_header_bytes);
  header_slots_ = std::make_unique<multipart_header[]>(limits_.max_header_count);
  std::memcpy(buffer_.get(), "\r\n--", 4);
  std::memcpy(buffer_.get() + 4, b.boundary.data(), b.boundary.size());
  // The first boundary line may open the body without a CRLF before it: start
  // as if that CRLF had been matched.
  matched_ = 2;
}

multipart_parser::~multipart_parser() = default;

std::string_view multipart_parser::boundary() const noexcept {
  return delimiter_size_ == 0 ? std::string_view() : delimiter().substr(4);
}

void multipart_parser::feed(std::string_view piece) noexcept {
  if (state_ == state::done || state_ == state::failed) return;
  if (pos_ < piece_.size() || finished_) {
    fail(error::bad_request, "feed() before the previous piece was used up, or after finish()");
    return;
  }
  piece_ = piece;
  pos_ = 0;
  fed_ += piece.size();
  if (fed_ > limits_.max_total_bytes) {
    pos_ = piece.size();
    fail(error::body_too_large, "the multipart body is over its size limit");
  }
}

void multipart_parser::finish() noexcept { finished_ = true; }

multipart_event multipart_parser::fail(stet::error code, std::string_view detail) noexcept {
  if (state_ != state::failed) {
    error_ = {make_error_code(code), detail, offset()};
    state_ = state::failed;
  }
  return {multipart_event_kind::failed, {}};
}

multipart_event multipart_parser::used_up() noexcept {
  if (!finished_) return {};
  switch (state_) {
    case state::preamble: return fail(error::multipart_truncated, "no boundary line in the body");
    case state::headers: return fail(error::multipart_truncated, "the body ended inside a part's header section");
    case state::data: return fail(error::multipart_truncated, "the body ended inside a part's data");
    default: return fail(error::multipart_truncated, "the body ended inside a boundary line");
  }
}

// The bytes up to the next delimiter (or up to what may be the start of one at
// the end of the piece, which is then held back in matched_), and whether the
// delimiter itself was consumed. Empty and not found: the piece is used up.
multipart_parser::scan_result multipart_parser::scan() noexcept {
  const std::string_view d = delimiter();
  const std::string_view rest = piece_.substr(pos_);
  if (matched_ > 0) {
    if (rest.empty()) return {{}, false};
    const std::size_t n = std::min(d.size() - matched_, rest.size());
    if (rest.substr(0, n) == d.substr(matched_, n)) {
      pos_ += n;
      matched_ += n;
      const bool found = matched_ == d.size();
      if (found) matched_ = 0;
      return {{}, found};
    }
    // Not a delimiter after all: what was held back is data. The bytes of this
    // piece that did match hold no CR, so none can start a delimiter and
    // scanning them again from pos_ finds nothing they hide.
    const std::string_view held = d.substr(0, matched_);
    matched_ = 0;
    return {held, false};
  }
  const std::size_t hit = find_in(rest, d);
  if (hit != std::string_view::npos) {
    pos_ += hit + d.size();
    return {rest.substr(0, hit), true};
  }
  matched_ = partial_match_at_end(rest, d);
  pos_ = piece_.size();
  return {rest.substr(0, rest.size() - matched_), false};
}

std::optional<multipart_event> multipart_parser::in_preamble() noexcept {
  for (;;) {
    const scan_result r = scan();
    if (r.found) {
      state_ = state::boundary_line;
      line_ = line_state::start;
      return std::nullopt;
    }
    if (r.data.empty()) return used_up();
  }
}

// After `--boundary`: `--` ends the body; spaces and tabs, then CRLF, start a
// part. A refused byte is left unconsumed, so the error's offset names it.
std::optional<multipart_event> multipart_parser::in_boundary_line() noexcept {
  for (; pos_ < piece_.size(); ++pos_) {
    const char c = piece_[pos_];
    switch (line_) {
      case line_state::start:
        if (c == '-') {
          line_ = line_state::dash;
          continue;
        }
        [[fallthrough]];
      case line_state::padding:
        if (c == ' ' || c == '\t') {
          line_ = line_state::padding;
          if (++padding_ > limits_.max_header_bytes) {
            return fail(error::multipart_header_too_large, "too much padding after a boundary");
          }
        } else if (c == '\r') {
          line_ = line_state::cr;
        } else if (c == '\n') {
          return fail(error::bad_multipart, "a bare LF after a boundary (lines end in CRLF)");
        } else {
          return fail(error::bad_multipart, "a boundary followed by bytes other than padding, CRLF or \"--\"");
        }
        continue;
      case line_state::dash:
        if (c != '-') return fail(error::bad_multipart, "a boundary followed by a single '-'");
        state_ = state::done;
        pos_ = piece_.size();
        return multipart_event{multipart_event_kind::done, {}};
      case line_state::cr:
        if (c != '\n') return fail(error::bad_multipart, "a bare CR after a boundary (lines end in CRLF)");
        if (part_count_ == limits_.max_parts) return fail(error::too_many_multipart_parts, "more parts than allowed");
        ++pos_;
        state_ = state::headers;
        padding_ = 0;
        std::memcpy(header_area(), crlf.data(), crlf.size());
        header_size_ = crlf.size();
        return std::nullopt;
    }
  }
  return used_up();
}

// The header area starts with the CRLF that ended the boundary line, so an
// empty header section is found by the same search for CRLF CRLF.
std::optional<multipart_event> multipart_parser::in_headers() noexcept {
  const std::size_t capacity = crlf.size() + limits_.max_header_bytes;
  const std::size_t n = std::min(piece_.size() - pos_, capacity - header_size_);
  char* area = header_area();
  std::memcpy(area + header_size_, piece_.data() + pos_, n);
  const std::size_t from = header_size_ >= 3 ? header_size_ - 3 : 0;
  const std::size_t end = find_in(std::string_view(area + from, header_size_ + n - from), header_end);
  if (end != std::string_view::npos) {
    const std::size_t block_end = from + end + crlf.size();
    pos_ += block_end + crlf.size() - header_size_;
    return begin_part(block_end);
  }
  header_size_ += n;
  pos_ += n;
  if (header_size_ == capacity) {
    return fail(error::multipart_header_too_large, "a part's header section is over its size limit");
  }
  return used_up();
}

multipart_event multipart_parser::begin_part(std::size_t block_end) noexcept {
  part_ = multipart_part{};
  part_.index = part_count_++;
  const std::string_view block(header_area() + crlf.size(), block_end - crlf.size());
  const std::span<char> scratch(header_area() + crlf.size() + limits_.max_header_bytes, limits_.max_header_bytes);
  const detail::part_head_error e =
      detail::parse_part_head(block, scratch, std::span(header_slots_.get(), limits_.max_header_count), part_);
  if (e) return fail(e.code, e.detail);
  state_ = state::data;
  part_bytes_ = 0;
  return {multipart_event_kind::part_begin, {}};
}

std::optional<multipart_event> multipart_parser::in_data() noexcept {
  const scan_result r = scan();
  if (r.found) state_ = state::data_end;
  if (!r.data.empty()) {
    part_bytes_ += r.data.size();
    if (part_bytes_ > limits_.max_part_bytes)
      return fail(error::multipart_part_too_large, "a part is over its size limit");
    return multipart_event{multipart_event_kind::part_data, r.data};
  }
  if (r.found) return std::nullopt;
  return used_up();
}

multipart_event multipart_parser::next() noexcept {
  for (;;) {
    std::optional<multipart_event> e;
    switch (state_) {
      case state::failed: return {multipart_event_kind::failed, {}};
      case state::done: return {multipart_event_kind::done, {}};
      case state::preamble: e = in_preamble(); break;
      case state::boundary_line: e = in_boundary_line(); break;
      case state::headers: e = in_headers(); break;
      case state::data: e = in_data(); break;
      case state::data_end:
        state_ = state::boundary_line;
        line_ = line_state::start;
        return {multipart_event_kind::part_end, {}};
    }
    if (e) return *e;
  }
}

}  // namespace stet
