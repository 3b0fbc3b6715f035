#pragma once
// Runs a multipart body through stet::multipart_parser in chosen pieces and
// writes down what came out, so tests and the fuzz target can compare the
// outcome of different splits. Each piece is fed from its own buffer, which is
// scribbled over as soon as the parser has used it up: a view that outlived its
// piece shows up as changed data.

#include <stet/multipart.hpp>

#include <algorithm>
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace stet::test {

struct collected_part {
  std::string name;
  std::optional<std::string> filename;
  std::string content_type;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string data;
  bool ended = false;

  bool operator==(const collected_part&) const = default;
};

struct multipart_outcome {
  std::vector<collected_part> parts;
  bool done = false;
  std::error_code error;
  std::uint64_t error_offset = 0;
  /// The first broken rule of the event sequence; empty when there was none.
  std::string violation;

  bool operator==(const multipart_outcome&) const = default;
};

class multipart_collector {
 public:
  explicit multipart_collector(multipart_outcome& out) noexcept : out_(out) {}

  void operator()(const multipart_parser& parser, const multipart_event& e) {
    switch (e.kind) {
      case multipart_event_kind::part_begin: begin(parser.part()); break;
      case multipart_event_kind::part_data:
        if (!in_part_) violate("part_data outside a part");
        if (e.data.empty()) violate("an empty part_data");
        if (!out_.parts.empty()) out_.parts.back().data.append(e.data);
        break;
      case multipart_event_kind::part_end:
        if (!in_part_) violate("part_end outside a part");
        in_part_ = false;
        if (!out_.parts.empty()) out_.parts.back().ended = true;
        break;
      case multipart_event_kind::done:
        if (in_part_) violate("done inside a part");
        out_.done = true;
        break;
      case multipart_event_kind::failed:
        out_.error = parser.error().code;
        out_.error_offset = parser.error().offset;
        if (!parser.error()) violate("failed without an error");
        break;
      case multipart_event_kind::need_more: violate("need_more handed to the visitor"); break;
    }
  }

 private:
  void begin(const multipart_part& p) {
    if (in_part_) violate("part_begin inside a part");
    if (p.index != out_.parts.size()) violate("part index out of order");
    in_part_ = true;
    collected_part c{std::string(p.name), std::nullopt, std::string(p.content_type), {}, {}, false};
    if (p.filename) c.filename = std::string(*p.filename);
    for (const multipart_header& h : p.headers) c.headers.emplace_back(h.name, h.value);
    out_.parts.push_back(std::move(c));
  }
  void violate(const char* what) {
    if (out_.violation.empty()) out_.violation = what;
  }

  multipart_outcome& out_;
  bool in_part_ = false;
};

/// Parses `body` fed as pieces of `sizes` (cycled; 0 means 1), from separate
/// buffers scribbled over once released.
inline multipart_outcome parse_multipart_in_pieces(std::string_view content_type, std::string_view body,
                                                   std::span<const std::size_t> sizes, multipart_options limits = {}) {
  multipart_outcome out;
  multipart_collector collect(out);
  multipart_parser parser(content_type, limits);
  const auto visit = [&](const multipart_event& e) { collect(parser, e); };
  std::size_t pos = 0;
  for (std::size_t i = 0; pos < body.size(); ++i) {
    const std::size_t want = sizes.empty() ? body.size() : std::max<std::size_t>(1, sizes[i % sizes.size()]);
    const std::size_t n = std::min(want, body.size() - pos);
    std::vector<char> piece(body.begin() + static_cast<std::ptrdiff_t>(pos),
                            body.begin() + static_cast<std::ptrdiff_t>(pos + n));
    pos += n;
    const multipart_event_kind last = parser.consume(std::string_view(piece.data(), piece.size()), visit);
    std::fill(piece.begin(), piece.end(), '\xA5');
    if (last != multipart_event_kind::need_more) return out;
  }
  parser.finish(visit);
  return out;
}

/// Parses `body` in one piece.
inline multipart_outcome parse_multipart_whole(std::string_view content_type, std::string_view body,
                                               multipart_options limits = {}) {
  return parse_multipart_in_pieces(content_type, body, {}, limits);
}

/// Parses `body` fed as two pieces cut at `cut`.
inline multipart_outcome parse_multipart_cut(std::string_view content_type, std::string_view body, std::size_t cut,
                                             multipart_options limits = {}) {
  const std::size_t sizes[] = {cut == 0 ? body.size() : cut, body.size()};
  return parse_multipart_in_pieces(content_type, body, sizes, limits);
}

}  // namespace stet::test
