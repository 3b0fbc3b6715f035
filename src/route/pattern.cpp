#include "route/pattern.hpp"

#include <stet/router.hpp>

#include "http/percent.hpp"

#include <fmt/format.h>

namespace stet::detail {
namespace {

std::string_view class_name(segment_kind k) noexcept {
  switch (k) {
    case segment_kind::literal: return "literal";
    case segment_kind::int64: return "int";
    case segment_kind::uint64: return "uint";
    case segment_kind::alpha: return "alpha";
    case segment_kind::alnum: return "alnum";
    case segment_kind::text: return "any";
    case segment_kind::rest: return "catch-all";
  }
  return "?";
}

std::string_view arg_name(arg_kind a) noexcept {
  switch (a) {
    case arg_kind::text: return "std::string_view";
    case arg_kind::int64: return "a signed integer";
    case arg_kind::uint64: return "an unsigned integer";
  }
  return "?";
}

// Literals are matched against decoded request segments, so they are stored
// decoded: "/caf%C3%A9" and "/café" are the same pattern.
std::string decode_literal(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%') {
      out += static_cast<char>(hex_value(text[i + 1]) * 16 + hex_value(text[i + 2]));
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

}  // namespace

void refuse(stet::method m, std::string_view pattern, std::string_view why) {
  throw route_error(fmt::format("stet::router: {} \"{}\": {}", to_string(m), pattern, why));
}

compiled_pattern compile_pattern(stet::method m, std::string_view pattern) {
  if (m == stet::method::other) refuse(m, pattern, "cannot route on method::other");
  const pattern_shape shape = scan_pattern(pattern);
  if (shape.error != nullptr) {
    refuse(m, pattern,
           shape.where == pattern ? std::string(shape.error) : fmt::format("{} (at \"{}\")", shape.error, shape.where));
  }
  compiled_pattern out;
  out.key = to_string(m);
  out.key += ' ';
  std::string_view ignored;
  for_each_segment(pattern, ignored, [&](const pattern_segment& seg, bool) -> const char* {
    out.key += '/';
    if (seg.kind == segment_kind::literal) {
      out.segments.push_back({seg.kind, decode_literal(seg.text)});
      // Length-prefixed: a decoded literal may contain '/' or '{'.
      out.key += fmt::format("{}:", out.segments.back().text.size());
      out.key += out.segments.back().text;
    } else {
      out.segments.push_back({seg.kind, std::string(seg.text)});
      out.params.push_back(seg.kind);
      out.key += '{';
      out.key += class_name(seg.kind);
      out.key += '}';
    }
    return nullptr;
  });
  return out;
}

void check_handler(stet::method m, std::string_view pattern, const compiled_pattern& compiled, std::size_t arg_offset,
                   const handler_box& handler) {
  if (handler.plain) return;
  const std::size_t own = compiled.params.size() - arg_offset;
  if (handler.args.size() != own) {
    refuse(m, pattern,
           fmt::format("the handler takes {} route argument(s) after request&, the pattern has {} parameter(s){}",
                       handler.args.size(), own, arg_offset == 0 ? "" : " after its prefix's"));
  }
  std::size_t param = 0;
  for (const compiled_segment& seg : compiled.segments) {
    if (seg.kind == segment_kind::literal || param++ < arg_offset) continue;
    const std::size_t index = param - arg_offset;
    const arg_kind a = handler.args[index - 1].kind;
    if (!accepts(a, seg.kind)) {
      refuse(m, pattern,
             fmt::format(
                 "handler argument {} is {}, which cannot receive {{{}}} (class {}); "
                 "{{x:int}} takes a signed integer type, {{x:uint}} an unsigned one, any parameter std::string_view",
                 index, arg_name(a), seg.text, class_name(seg.kind)));
    }
  }
}

std::string join_pattern(std::string_view prefix, std::string_view pattern) {
  while (!prefix.empty() && prefix.back() == '/') prefix.remove_suffix(1);
  if (prefix.empty()) return std::string(pattern);
  if (pattern == "/") return std::string(prefix);
  std::string out(prefix);
  out += pattern;
  return out;
}

}  // namespace stet::detail
