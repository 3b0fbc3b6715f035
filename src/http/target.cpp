#include "http/target.hpp"

#include "http/token.hpp"

#include <algorithm>

namespace stet::detail {
namespace {

bool starts_with_icase(std::string_view s, std::string_view prefix) noexcept {
  return s.size() >= prefix.size() && iequals(s.substr(0, prefix.size()), prefix);
}

}  // namespace

std::optional<target_parts> split_other_target(stet::method m, std::string_view target) noexcept {
  target_parts parts;
  std::string_view rest = target;
  if (m == stet::method::connect) {
    parts.authority = target;
    parts.raw_path = "/";
    return parts;
  }
  if (target == "*" && m == stet::method::options) {
    parts.raw_path = "*";
    return parts;
  }
  if (starts_with_icase(target, "http://") || starts_with_icase(target, "https://")) {
    // Absolute-form: the target's authority replaces Host (RFC 9112 3.2.2).
    rest = target.substr(target.find("://") + 3);
    const std::size_t path_at = std::min(rest.find('/'), rest.find('?'));
    parts.authority = rest.substr(0, path_at);
    // "http://user:pw@host/": userinfo is deprecated and a phishing device
    // (RFC 9110 4.2.4); a server must not take it for the host.
    if (parts.authority.empty() || parts.authority.find('@') != std::string_view::npos) return std::nullopt;
    rest = path_at == std::string_view::npos ? std::string_view("/") : rest.substr(path_at);
  } else if (target.empty() || target.front() != '/') {
    return std::nullopt;
  }
  rest = rest.substr(0, rest.find('#'));
  const std::size_t question = rest.find('?');
  parts.raw_path = rest.substr(0, question);
  if (question != std::string_view::npos) parts.query = rest.substr(question + 1);
  if (parts.raw_path.empty()) parts.raw_path = "/";
  return parts;
}

std::optional<std::string_view> raw_query_arg(std::string_view query, std::string_view name) noexcept {
  while (!query.empty()) {
    const std::size_t amp = query.find('&');
    const std::string_view pair = query.substr(0, amp);
    const std::size_t eq = pair.find('=');
    if (pair.substr(0, eq) == name) return eq == std::string_view::npos ? std::string_view() : pair.substr(eq + 1);
    if (amp == std::string_view::npos) break;
    query.remove_prefix(amp + 1);
  }
  return std::nullopt;
}

}  // namespace stet::detail
