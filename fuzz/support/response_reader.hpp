#pragma once
// Reads what a server sent on one connection as a sequence of HTTP/1.1
// responses. The reader does not know which requests were HEAD, so a response
// with Content-Length or chunked framing may or may not carry its body; it
// tries both and keeps the reading under which every byte is accounted for
// (remembering positions that lead nowhere, so the search stays linear).

#include "http/token.hpp"

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace stet::fuzz {

struct response_head {
  unsigned status = 0;
  bool close = false;    ///< Connection: close
  bool chunked = false;  ///< Transfer-Encoding: chunked
  std::optional<std::uint64_t> length;
  std::size_t body_start = 0;
};

/// The head of a response at `pos`: "HTTP/1.1 ddd reason", well-formed fields,
/// an empty line. nullopt when the bytes are anything else, or cut short.
inline std::optional<response_head> read_head(std::string_view out, std::size_t pos) {
  const std::size_t end = out.find("\r\n\r\n", pos);
  if (end == std::string_view::npos) return std::nullopt;
  std::string_view head = out.substr(pos, end + 2 - pos);
  const std::size_t line_end = head.find("\r\n");
  const std::string_view line = head.substr(0, line_end);
  response_head h;
  if (line.size() < 13 || !line.starts_with("HTTP/1.1 ") || line[12] != ' ') return std::nullopt;
  const auto [p, ec] = std::from_chars(line.data() + 9, line.data() + 12, h.status);
  if (ec != std::errc() || p != line.data() + 12 || h.status < 100 || h.status > 599) return std::nullopt;
  head.remove_prefix(line_end + 2);
  while (!head.empty()) {
    const std::size_t eol = head.find("\r\n");
    const std::string_view field = head.substr(0, eol);
    head.remove_prefix(eol + 2);
    const std::size_t colon = field.find(':');
    if (colon == std::string_view::npos || !detail::is_token(field.substr(0, colon))) return std::nullopt;
    const std::string_view name = field.substr(0, colon);
    const std::string_view value = detail::trim_ows(field.substr(colon + 1));
    if (!detail::is_field_value(value)) return std::nullopt;
    if (detail::iequals(name, "connection")) h.close = h.close || detail::iequals(value, "close");
    if (detail::iequals(name, "transfer-encoding")) h.chunked = detail::iequals(value, "chunked");
    if (detail::iequals(name, "content-length")) {
      std::uint64_t n = 0;
      const auto [q, e] = std::from_chars(value.data(), value.data() + value.size(), n);
      if (e != std::errc() || q != value.data() + value.size() || h.length) return std::nullopt;
      h.length = n;
    }
  }
  if (h.chunked && h.length) return std::nullopt;  // never both (RFC 9112 6.1)
  h.body_start = end + 4;
  return h;
}

/// Where a chunked body starting at `pos` ends, or nullopt.
inline std::optional<std::size_t> chunked_end(std::string_view out, std::size_t pos) {
  while (true) {
    const std::size_t eol = out.find("\r\n", pos);
    if (eol == std::string_view::npos || eol == pos) return std::nullopt;
    std::uint64_t size = 0;
    const auto [p, ec] = std::from_chars(out.data() + pos, out.data() + eol, size, 16);
    if (ec != std::errc() || p != out.data() + eol) return std::nullopt;
    pos = eol + 2;
    if (size == 0) return out.substr(pos, 2) == "\r\n" ? std::optional(pos + 2) : std::nullopt;
    if (out.size() - pos < size + 2 || out.substr(pos + size, 2) != "\r\n") return std::nullopt;
    pos += size + 2;
  }
}

/// The statuses of the final (non-1xx) responses in `out`, in order, or
/// nullopt when `out` is not a sequence of complete responses in which
/// nothing follows a `Connection: close` response.
class response_reader {
 public:
  explicit response_reader(std::string_view out) : out_(out), dead_(out.size() + 1, false) {}

  std::optional<std::vector<unsigned>> statuses() {
    std::vector<unsigned> reversed;
    if (!from(0, reversed)) return std::nullopt;
    return std::vector<unsigned>(reversed.rbegin(), reversed.rend());
  }

 private:
  bool from(std::size_t pos, std::vector<unsigned>& reversed) {
    if (pos == out_.size()) return true;
    if (dead_[pos]) return false;
    if (const std::optional<response_head> h = read_head(out_, pos)) {
      for (const std::size_t end : body_ends(*h)) {
        if (h->close && end != out_.size()) continue;
        if (!from(end, reversed)) continue;
        if (h->status >= 200) reversed.push_back(h->status);
        return true;
      }
    }
    dead_[pos] = true;
    return false;
  }

  // Where the response may end: without a body (HEAD, 1xx, 204, 304), or after it.
  std::vector<std::size_t> body_ends(const response_head& h) const {
    std::vector<std::size_t> ends{h.body_start};
    if (h.status < 200 || h.status == 204 || h.status == 304) return ends;
    if (h.chunked) {
      if (const std::optional<std::size_t> e = chunked_end(out_, h.body_start)) ends.push_back(*e);
    } else if (h.length) {
      if (*h.length > 0 && out_.size() - h.body_start >= *h.length) ends.push_back(h.body_start + *h.length);
    } else {
      ends.push_back(out_.size());  // no framing: the body runs to the close
    }
    return ends;
  }

  std::string_view out_;
  std::vector<bool> dead_;
};

}  // namespace stet::fuzz
