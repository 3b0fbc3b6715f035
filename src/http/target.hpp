#pragma once
// Splitting a request-target (RFC 9112 3.2) into path, query and authority:
// one function for the connection and for in-process dispatch (test_request),
// so a request built in memory can never be read differently from the wire.

#include <stet/method.hpp>

#include <algorithm>
#include <optional>
#include <string_view>

namespace stet::detail {

/// A request-target's parts, as views into it.
struct target_parts {
  std::string_view raw_path;   ///< escapes intact; "/" when an absolute-form target has none; "*" for asterisk-form
  std::string_view query;      ///< after '?', without it; empty when absent
  std::string_view authority;  ///< of an absolute-form target (or CONNECT's); empty for origin-form
};

/// The parts of `target` for a request with method `m` (split_target()), or
/// for every form but origin-form (split_other_target()); nullopt when the
/// target is not a form `m` may use: origin-form "/...", absolute-form
/// "http(s)://authority/..." (never with userinfo: RFC 9110 4.2.4), "*" for
/// OPTIONS, authority-form for CONNECT. A fragment is dropped. Origin-form,
/// nearly every request, is split inline: no other form starts with '/'.
std::optional<target_parts> split_other_target(stet::method m, std::string_view target) noexcept;
inline std::optional<target_parts> split_target(stet::method m, std::string_view target) noexcept {
  if (target.empty() || target.front() != '/' || m == stet::method::connect) return split_other_target(m, target);
  target_parts parts;
  const std::size_t end = std::min(target.find('#'), target.size());
  const std::size_t question = target.find('?');
  if (question < end) {
    parts.raw_path = target.substr(0, question);
    parts.query = target.substr(question + 1, end - question - 1);
  } else {
    parts.raw_path = target.substr(0, end);
  }
  return parts;
}

/// The raw (still encoded) value of the first `name` argument of `query`
/// ("" for `name` without "="); nullopt when absent. For names and values that
/// need no decoding to compare (hex digests, keys of a cache).
std::optional<std::string_view> raw_query_arg(std::string_view query, std::string_view name) noexcept;

}  // namespace stet::detail
