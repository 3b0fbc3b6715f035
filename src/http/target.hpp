#pragma once
// Splitting a request-target (RFC 9112 3.2) into path, query and authority:
// one function for the connection and for in-process dispatch (test_request),
// so a request built in memory can never be read differently from the wire.

#include <stet/method.hpp>

#include <optional>
#include <string_view>

namespace stet::detail {

/// A request-target's parts, as views into it.
struct target_parts {
  std::string_view raw_path;   ///< escapes intact; "/" when an absolute-form target has none; "*" for asterisk-form
  std::string_view query;      ///< after '?', without it; empty when absent
  std::string_view authority;  ///< of an absolute-form target (or CONNECT's); empty for origin-form
};

/// The parts of `target` for a request with method `m`; nullopt when the
/// target is not a form `m` may use: origin-form "/...", absolute-form
/// "http(s)://authority/..." (never with userinfo: RFC 9110 4.2.4), "*" for
/// OPTIONS, authority-form for CONNECT. A fragment is dropped.
std::optional<target_parts> split_target(stet::method m, std::string_view target) noexcept;

}  // namespace stet::detail
