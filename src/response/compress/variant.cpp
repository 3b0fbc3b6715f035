#include "response/compress/variant.hpp"

#include <stet/response.hpp>

#include "http/token.hpp"
#include "response/header_scan.hpp"
#include "response/response_access.hpp"
#include "http/conditional.hpp"

#include <array>

namespace stet::detail {
namespace {

// A tag as `prefix` (W/ and the opening quote through the opaque text) and the
// closing quote; false when it is not quoted.
bool split_etag(std::string_view etag, std::string_view& open) noexcept {
  const bool weak = etag.starts_with("W/");
  const std::string_view quoted = weak ? etag.substr(2) : etag;
  if (quoted.size() < 2 || quoted.front() != '"' || quoted.back() != '"') return false;
  open = etag.substr(0, etag.size() - 1);
  return true;
}

}  // namespace

bool variant_etag(std::string_view etag, content_coding c, std::string& out) {
  std::string_view open;
  if (!split_etag(etag, open)) return false;
  out.assign(open);
  if (c != content_coding::identity) {
    out += '-';
    out += coding_name(c);
  }
  out += '"';
  return true;
}

bool if_none_match_matches(std::string_view list, std::string_view identity_etag, content_coding served) noexcept {
  std::string_view open;
  if (!split_etag(identity_etag, open)) return etag_list_matches(list, identity_etag, true);
  // Built on the stack: a tag longer than this is compared as written, which
  // can only turn a 304 into a 200, never the reverse.
  std::array<char, 256> tag{};
  const std::string_view suffix = served == content_coding::identity ? std::string_view() : coding_name(served);
  const std::size_t length = open.size() + (suffix.empty() ? 0 : suffix.size() + 1) + 1;
  if (length > tag.size()) return served == content_coding::identity && etag_list_matches(list, identity_etag, true);
  std::size_t at = open.copy(tag.data(), open.size());
  if (!suffix.empty()) {
    tag[at++] = '-';
    at += suffix.copy(tag.data() + at, suffix.size());
  }
  tag[at++] = '"';
  return etag_list_matches(list, std::string_view(tag.data(), at), true);
}

bool vary_lists_accept_encoding(std::string_view vary) noexcept {
  while (!vary.empty()) {
    const std::size_t comma = vary.find(',');
    const std::string_view name = trim_ows(vary.substr(0, comma));
    if (name == "*" || iequals(name, "accept-encoding")) return true;
    if (comma == std::string_view::npos) break;
    vary.remove_prefix(comma + 1);
  }
  return false;
}

void add_vary_accept_encoding(response& r) {
  std::string merged;
  bool covered = false;
  for_each_field(r.header_block(), [&](std::string_view name, std::string_view value) {
    if (!iequals(name, "vary")) return false;
    covered = covered || vary_lists_accept_encoding(value);
    if (!merged.empty()) merged += ", ";
    merged += value;
    return false;
  });
  if (covered) return;
  if (merged.empty()) {
    response_access::append_trusted_field(r, "Vary", "Accept-Encoding");
    return;
  }
  merged += ", Accept-Encoding";
  (void)r.set_header("Vary", merged);  // the parts were valid field values, so is the list
}

}  // namespace stet::detail
