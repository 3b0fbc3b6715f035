// Target 6: chunked body decoding, through the request parser the connection
// uses (llhttp and stet's callbacks and limits). A chunked POST head is fixed;
// the input is what follows it (chunks, trailers, pipelined requests), cut into
// reads as its first bytes say. Properties:
//   - the outcome (each message's body, or the error) does not depend on how
//     the bytes were cut into reads;
//   - a decoded body is never longer than the bytes that carried it;
//   - where a plain reading of RFC 9112 7.1 decodes the chunks too, both agree
//     on the body and on where the message ends;
//   - the parser never reads a byte it was not given (each read is a fresh
//     buffer of exactly the bytes delivered so far, so ASan sees an overread).

#include "http/request_parser.hpp"
#include "support/require.hpp"
#include "support/splits.hpp"

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace {

using stet::detail::request_parser;
using stet::fuzz::require;

constexpr std::string_view head = "POST /upload HTTP/1.1\r\nHost: fuzz\r\nTransfer-Encoding: chunked\r\n\r\n";

// Small limits, so that the fuzzer reaches every one of them.
constexpr stet::detail::parser_limits limits{1024, 512, 16, 4096};

struct message {
  request_parser::event what;
  std::string body;
  stet::error failure;
  std::size_t end;  // offset just past the message in the stream; 0 for an error
  bool operator==(const message&) const = default;
};

std::vector<message> parse_in_pieces(std::string_view stream, const std::vector<std::size_t>& pieces) {
  request_parser parser(limits);
  std::vector<message> out;
  std::string body;
  std::unique_ptr<char[]> buffer;
  std::size_t begin = 0;
  std::size_t end = 0;
  std::size_t next_piece = 0;
  for (std::size_t steps = 0;; ++steps) {
    require(steps <= 4 * stream.size() + pieces.size() + 8, "the parser makes progress", stream);
    if (begin == end) {
      if (next_piece == pieces.size()) break;
      end += pieces[next_piece++];
      buffer = std::make_unique<char[]>(end);  // exactly the bytes delivered so far
      std::memcpy(buffer.get(), stream.data(), end);
    }
    const request_parser::result r = parser.execute(buffer.get(), begin, end, body);
    require(r.consumed <= end - begin, "consumes only what it was given", stream);
    begin += r.consumed;
    switch (r.what) {
      case request_parser::event::need_more:
        require(begin == end, "need_more means every byte was used", stream);
        break;
      case request_parser::event::head_complete: break;
      case request_parser::event::body_piece:
        require(false, "a buffered body is never handed out in pieces", stream);
        break;
      case request_parser::event::message_complete: out.push_back({r.what, body, stet::error{}, begin}); break;
      case request_parser::event::failed:
        // Where in the stream an error is noticed may depend on the cuts (a
        // limit is checked per read); the connection closes then, so only the
        // error itself must not.
        out.push_back({r.what, {}, parser.failure(), 0});
        return out;
    }
  }
  return out;
}

// RFC 9112 7.1 read plainly: hex size, optional extensions, CRLF, data, CRLF;
// after the last chunk, trailer lines up to an empty one. The body and where
// the message ends, or nullopt when the bytes are not that (or incomplete).
struct plain_result {
  std::string body;
  std::size_t end;
};

std::optional<std::size_t> line_end(std::string_view s, std::size_t from) {
  const std::size_t crlf = s.find("\r\n", from);
  if (crlf == std::string_view::npos) return std::nullopt;
  return crlf;
}

std::optional<plain_result> plain_dechunk(std::string_view s, std::size_t pos) {
  plain_result out;
  while (true) {
    std::uint64_t size = 0;
    std::size_t digits = 0;
    for (; pos < s.size() && std::isxdigit(static_cast<unsigned char>(s[pos])) != 0; ++pos, ++digits) {
      if (size >> 60 != 0) return std::nullopt;
      const char c = s[pos];
      size = size * 16 + static_cast<std::uint64_t>(c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
    }
    if (digits == 0) return std::nullopt;
    const std::optional<std::size_t> eol = line_end(s, pos);
    if (!eol) return std::nullopt;
    pos = *eol + 2;
    if (size == 0) break;
    if (s.size() - pos < size + 2 || s.substr(pos + size, 2) != "\r\n") return std::nullopt;
    out.body.append(s.substr(pos, size));
    pos += size + 2;
  }
  while (true) {
    const std::optional<std::size_t> eol = line_end(s, pos);
    if (!eol) return std::nullopt;
    const bool empty = *eol == pos;
    pos = *eol + 2;
    if (empty) break;
  }
  out.end = pos;
  return out;
}

// Size limits are checked as bytes arrive, llhttp's syntax when it reaches the
// byte: for a head or trailer section both over a limit (size, field count)
// and malformed, which one is reported (431/414 or 400) depends on the cuts. Both refuse and close;
// that is the only difference allowed.
bool same_refusal(const std::vector<message>& a, const std::vector<message>& b) {
  if (a.size() != b.size() || a.empty() || a.back().what != request_parser::event::failed ||
      b.back().what != request_parser::event::failed || !std::equal(a.begin(), a.end() - 1, b.begin())) {
    return false;
  }
  const auto size_limit = [](stet::error e) {
    return e == stet::error::header_too_large || e == stet::error::target_too_long ||
           e == stet::error::too_many_headers;
  };
  return size_limit(a.back().failure) || size_limit(b.back().failure);
}

// "complete 5 bytes @70; failed error 12 @80": what a failed property prints.
std::string describe(const std::vector<message>& messages) {
  std::string out;
  for (const message& m : messages) {
    if (m.what == request_parser::event::message_complete) {
      out += "complete " + std::to_string(m.body.size()) + " bytes";
    } else {
      out += "failed error " + std::to_string(static_cast<int>(m.failure));
    }
    out += m.end != 0 ? " @" + std::to_string(m.end) + "; " : "; ";
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const stet::fuzz::split_input input = stet::fuzz::take_splits(data, size);
  std::string stream(head);
  stream.append(input.payload);

  // The head goes in its own read, then the input's cuts.
  std::vector<std::size_t> pieces{head.size()};
  pieces.insert(pieces.end(), input.pieces.begin(), input.pieces.end());
  const std::vector<message> cut = parse_in_pieces(stream, pieces);
  const std::vector<message> whole = parse_in_pieces(stream, {stream.size()});
  require(cut == whole || same_refusal(cut, whole), "the outcome does not depend on how the bytes were cut",
          "cut: " + describe(cut) + " whole: " + describe(whole));

  std::size_t previous_end = 0;
  for (const message& m : whole) {
    if (m.what != request_parser::event::message_complete) break;
    require(m.body.size() <= m.end - previous_end, "a body is no longer than its bytes", stream);
    previous_end = m.end;
  }
  if (!whole.empty() && whole.front().what == request_parser::event::message_complete) {
    const std::optional<plain_result> plain = plain_dechunk(stream, head.size());
    if (plain) {
      require(plain->body == whole.front().body, "the body is the chunks' data, in order", stream);
      require(plain->end == whole.front().end, "the message ends after the last chunk's trailers", stream);
    }
  }
  return 0;
}
