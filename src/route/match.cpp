#include "route/match.hpp"

#include "http/percent.hpp"

#include <algorithm>
#include <array>
#include <limits>

namespace stet::detail {
namespace {

struct segment {
  std::string_view raw;
  std::string_view decoded;
  std::uint32_t hash;
  bool has_escape;
  bool decoded_ready;
  bool hashed;
  bool bad;  // malformed escape or %00: matches nothing
};

// Segments are short: an inline loop beats a call to memcmp.
bool same_text(std::string_view a, std::string_view b) noexcept {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i] != b[i]) return false;
  }
  return true;
}

segment make_segment(std::string_view raw, bool has_escape) noexcept {
  return segment{raw, raw, 0, has_escape, !has_escape, false, false};
}

bool is_alpha(char c) noexcept { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_digit(char c) noexcept { return c >= '0' && c <= '9'; }

bool parse_digits(std::string_view s, std::uint64_t limit, std::uint64_t& out) noexcept {
  if (s.empty()) return false;
  std::uint64_t v = 0;
  for (const char c : s) {
    if (!is_digit(c)) return false;
    const auto d = static_cast<std::uint64_t>(c - '0');
    if (v > (limit - d) / 10) return false;  // overflow: no match, never a wrapped value
    v = v * 10 + d;
  }
  out = v;
  return true;
}

}  // namespace

bool convert_segment(segment_kind k, std::string_view s, std::uint64_t& number) noexcept {
  switch (k) {
    case segment_kind::int64: {
      const bool negative = !s.empty() && s.front() == '-';
      constexpr auto max = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
      std::uint64_t magnitude = 0;
      if (!parse_digits(negative ? s.substr(1) : s, negative ? max + 1 : max, magnitude)) return false;
      number = negative ? ~magnitude + 1 : magnitude;  // two's complement of the magnitude
      return true;
    }
    case segment_kind::uint64: return parse_digits(s, std::numeric_limits<std::uint64_t>::max(), number);
    case segment_kind::alpha: return !s.empty() && std::all_of(s.begin(), s.end(), is_alpha);
    case segment_kind::alnum:
      return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return is_alpha(c) || is_digit(c); });
    case segment_kind::text: return !s.empty();
    case segment_kind::rest: return true;
    case segment_kind::literal: return false;
  }
  return false;
}

namespace {

class walker {
 public:
  walker(const route_table& t, stet::method m, std::string_view path, std::pmr::memory_resource& arena,
         capture* out) noexcept
      : t_(t), method_(m), path_(path), arena_(arena), out_(out) {}

  // One pass finds both the slashes and whether a segment has an escape, so
  // segments without one are never looked at again to be decoded.
  void split() noexcept {
    count_ = 0;
    more_ = false;
    if (path_.size() <= 1) return;
    // One past the deepest pattern, so that "deeper than any route" and "one
    // trailing slash too many" can be told apart.
    const std::size_t limit = std::min(t_.max_depth, max_pattern_segments) + 1;
    std::size_t from = 1;
    bool escape = false;
    for (std::size_t i = 1; i <= path_.size(); ++i) {
      const char c = i < path_.size() ? path_[i] : '/';
      if (c == '%') escape = true;
      if (c != '/') continue;
      if (count_ == limit) {
        more_ = true;
        return;
      }
      segs_[count_++] = make_segment(path_.substr(from, i - from), escape);
      from = i + 1;
      escape = false;
    }
  }

  match_outcome run() noexcept {
    outcome_ = {};
    if (visit(0, 0, 0)) {
      outcome_.what = match_outcome::kind::route;
    } else if (outcome_.allow != 0) {
      outcome_.what =
          method_ == stet::method::options ? match_outcome::kind::options : match_outcome::kind::not_allowed;
    }
    return outcome_;
  }

  // Trailing-slash fallbacks: would the path match with its last '/' dropped,
  // or with one added? Only then is a redirect worth sending.
  bool matches_without_slash() noexcept {
    if (count_ == 0 || more_ || !segs_[count_ - 1].raw.empty()) return false;
    --count_;
    const match_outcome o = run();
    ++count_;
    return o.what != match_outcome::kind::not_found;
  }
  bool matches_with_slash() noexcept {
    if (count_ == 0 || more_ || segs_[count_ - 1].raw.empty() || count_ >= t_.max_depth) return false;
    segs_[count_++] = make_segment(path_.substr(path_.size()), false);
    const match_outcome o = run();
    --count_;
    return o.what != match_outcome::kind::not_found;
  }

 private:
  const segment& decoded(std::size_t d) noexcept {
    segment& s = segs_[d];
    if (!s.decoded_ready) {
      s.decoded_ready = true;
      const std::optional<std::string_view> text = percent_decode_path(s.raw, arena_);
      s.bad = !text;
      s.decoded = text.value_or(std::string_view());
    }
    return s;
  }

  std::uint32_t find_literal(const trie_node& n, segment& seg) const noexcept {
    const literal_edge* edges = t_.literals.data();
    if (n.slot_mask == 0) {
      for (std::uint32_t e = n.literal_begin; e < n.literal_begin + n.literal_count; ++e) {
        if (same_text(edges[e].text, seg.decoded)) return edges[e].child;
      }
      return no_index;
    }
    if (!seg.hashed) {
      seg.hash = segment_hash(seg.decoded);
      seg.hashed = true;
    }
    const std::uint32_t* slots = t_.literal_slots.data() + n.slot_begin;
    for (std::uint32_t slot = seg.hash & n.slot_mask;; slot = (slot + 1) & n.slot_mask) {
      const std::uint32_t e = slots[slot];
      if (e == no_index) return no_index;
      if (edges[e].hash == seg.hash && same_text(edges[e].text, seg.decoded)) return edges[e].child;
    }
  }

  bool terminal(const trie_node& n, std::size_t captured) noexcept {
    if (n.methods == 0) return false;
    std::uint32_t entry = n.routes[static_cast<std::size_t>(method_)];
    if (entry == no_index && method_ == stet::method::head) {
      entry = n.routes[static_cast<std::size_t>(stet::method::get)];
    }
    if (entry == no_index) {
      outcome_.allow |= n.methods;  // a candidate for 405's Allow; keep looking
      if (outcome_.preflight_size == 0) {
        outcome_.preflight_begin = n.preflight_begin;
        outcome_.preflight_size = n.preflight_size;
      }
      return false;
    }
    const route_entry& e = t_.entries[entry];
    // A handler parameter narrower than 64 bits (an `int id`) takes only the
    // values its type holds; any other is no match, as an int64 overflow is.
    if (e.handler->narrow && !in_range(e.handler->args, out_ + e.arg_offset)) return false;
    outcome_.entry = &e;
    outcome_.captured = static_cast<std::uint8_t>(captured);
    return true;
  }

  bool visit(std::uint32_t index, std::size_t d, std::size_t captured) noexcept {
    const trie_node& n = t_.nodes[index];
    if (d == count_) return !more_ && terminal(n, captured);
    if (n.literal_count + n.param_count != 0) {
      segment& seg = segs_[d];
      decoded(d);
      if (seg.bad) return false;  // a catch-all would decode the same escape and fail too
      if (n.literal_count != 0) {
        const std::uint32_t child = find_literal(n, seg);
        if (child != no_index && visit(child, d + 1, captured)) return true;
      }
      for (std::uint32_t i = 0; i < n.param_count; ++i) {
        const param_edge& edge = t_.params[n.param_begin + i];
        std::uint64_t number = 0;
        if (!convert_segment(edge.kind, seg.decoded, number)) continue;
        out_[captured] = capture{seg.decoded, seg.raw, number};
        if (visit(edge.child, d + 1, captured + 1)) return true;
      }
    }
    if (n.rest != no_index) return catch_all(t_.nodes[n.rest], d, captured);
    return false;
  }

  bool catch_all(const trie_node& leaf, std::size_t d, std::size_t captured) noexcept {
    const std::string_view raw = path_.substr(static_cast<std::size_t>(segs_[d].raw.data() - path_.data()));
    const std::optional<std::string_view> text = percent_decode_path(raw, arena_);
    if (!text) return false;
    out_[captured] = capture{*text, raw, 0};
    return terminal(leaf, captured + 1);
  }

  const route_table& t_;
  const stet::method method_;
  const std::string_view path_;
  std::pmr::memory_resource& arena_;
  capture* const out_;
  // Left uninitialised: split() writes every segment it counts.
  union {
    std::array<segment, max_pattern_segments + 2> segs_;
  };
  std::size_t count_ = 0;
  bool more_ = false;  // the path goes on past the deepest pattern: only a catch-all can take it
  match_outcome outcome_;
};

// The route of a path spelled by literals only, found by one probe: the walk
// would follow the same literal edges (they win at every depth) to the same
// node. Null when the path is not one of them or that node has no route for
// `m` (the walk then looks further: parameters, a catch-all, 405's Allow).
const route_entry* exact_route(const route_table& t, stet::method m, std::string_view path) noexcept {
  if (t.exact_slots.empty()) return nullptr;
  const std::uint32_t hash = exact_hash(path);
  const std::uint32_t* slots = t.exact_slots.data();
  for (std::uint32_t slot = hash & t.exact_mask;; slot = (slot + 1) & t.exact_mask) {
    const std::uint32_t e = slots[slot];
    if (e == no_index) return nullptr;
    const exact_path& candidate = t.exact[e];
    if (candidate.hash != hash || candidate.text != path) continue;
    const trie_node& n = t.nodes[candidate.node];
    std::uint32_t entry = n.routes[static_cast<std::size_t>(m)];
    if (entry == no_index && m == stet::method::head) entry = n.routes[static_cast<std::size_t>(stet::method::get)];
    if (entry == no_index || t.entries[entry].handler->narrow) return nullptr;
    return &t.entries[entry];
  }
}

}  // namespace

match_outcome match_path(const route_table& t, stet::method m, std::string_view raw_path,
                         std::pmr::memory_resource& arena, capture* out) noexcept {
  if (raw_path.empty() || raw_path.front() != '/') {
    // "OPTIONS *" asks about the server as a whole (RFC 9110 9.3.7).
    if (raw_path == "*" && m == stet::method::options && t.all_methods != 0) {
      return {match_outcome::kind::options, nullptr, t.all_methods};
    }
    return {};
  }
  if (const route_entry* e = exact_route(t, m, raw_path)) return {match_outcome::kind::route, e};
  walker w(t, m, raw_path, arena, out);
  w.split();
  match_outcome o = w.run();
  if (o.what != match_outcome::kind::not_found) return o;
  if (t.options.redirect_trailing_slash && w.matches_without_slash()) {
    return {match_outcome::kind::redirect, nullptr, 0, 0, false};
  }
  if (t.options.redirect_missing_slash && w.matches_with_slash()) {
    return {match_outcome::kind::redirect, nullptr, 0, 0, true};
  }
  return {};
}

}  // namespace stet::detail
