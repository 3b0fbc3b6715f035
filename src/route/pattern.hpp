#pragma once
// A route pattern compiled for the trie: literal segments decoded once, each
// parameter's name and class, and the key that makes two routes ambiguous.

#include <stet/detail/route_handler.hpp>
#include <stet/detail/route_pattern.hpp>
#include <stet/method.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace stet::detail {

struct compiled_segment {
  segment_kind kind = segment_kind::literal;
  std::string text;  // literal: percent-decoded; parameter: its name
};

struct compiled_pattern {
  std::vector<compiled_segment> segments;
  std::vector<segment_kind> params;  // parameter kinds in order
  // Same method + same key = a route that could never be told apart from
  // another: names are left out, classes and literals kept.
  std::string key;
};

/// Compiles `pattern`. @throws route_error naming `m`, the pattern and the reason.
compiled_pattern compile_pattern(stet::method m, std::string_view pattern);

/// Checks that a handler's arguments fit the pattern's parameters after the
/// first `arg_offset` (those of a group or mount prefix, reachable through
/// request::param() only). @throws route_error.
void check_handler(stet::method m, std::string_view pattern, const compiled_pattern& compiled, std::size_t arg_offset,
                   const handler_box& handler);

/// `prefix` + `pattern`, where a pattern of "/" under a prefix is the prefix itself.
std::string join_pattern(std::string_view prefix, std::string_view pattern);

/// Throws route_error with "stet::router: <METHOD> <pattern>: <why>".
[[noreturn]] void refuse(stet::method m, std::string_view pattern, std::string_view why);

}  // namespace stet::detail
