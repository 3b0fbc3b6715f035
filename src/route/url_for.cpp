#include <stet/router.hpp>

#include "http/percent.hpp"
#include "route/epoch.hpp"
#include "route/match.hpp"
#include "route/state.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <limits>

namespace stet {
namespace {

// "." and ".." would be removed by clients normalising the path; escaped,
// they reach the router and decode back to themselves.
void append_parameter(std::string& out, std::string_view text, bool catch_all) {
  if (!catch_all && (text == "." || text == "..")) {
    for (std::size_t i = 0; i < text.size(); ++i) out += "%2E";
    return;
  }
  detail::append_percent_encoded(out, text, catch_all ? detail::path_slashes::keep : detail::path_slashes::escape);
}

// The text of `arg` for a parameter of class `k`, written to `scratch` for
// integers; empty `error` when it fits.
std::string_view argument_text(const url_arg& arg, detail::segment_kind k, std::array<char, 24>& scratch,
                               std::string_view& error) noexcept {
  using detail::segment_kind;
  std::string_view text = arg.text;
  if (arg.kind != url_arg::type::text) {
    const auto end =
        arg.kind == url_arg::type::signed_integer
            ? std::to_chars(scratch.data(), scratch.data() + scratch.size(), static_cast<std::int64_t>(arg.bits)).ptr
            : std::to_chars(scratch.data(), scratch.data() + scratch.size(), arg.bits).ptr;
    text = std::string_view(scratch.data(), static_cast<std::size_t>(end - scratch.data()));
  }
  std::uint64_t ignored = 0;
  if (!detail::convert_segment(k, text, ignored)) {
    error = k == segment_kind::int64 || k == segment_kind::uint64
                ? "an argument is not an integer in the range of its parameter's class"
                : "an argument does not fit its parameter's class (alpha/alnum) or is empty";
    return {};
  }
  return text;
}

const url_arg* find_arg(std::initializer_list<url_arg> args, std::string_view name) noexcept {
  for (const url_arg& a : args) {
    if (a.name == name) return &a;
  }
  return nullptr;
}

built_url build(const detail::route_def& def, std::initializer_list<url_arg> args) {
  using detail::segment_kind;
  const auto& segments = def.compiled.segments;
  for (const url_arg& a : args) {
    const bool known = std::any_of(segments.begin(), segments.end(), [&](const detail::compiled_segment& s) {
      return s.kind != segment_kind::literal && s.text == a.name;
    });
    if (!known) return {{}, "an argument names no parameter of the route"};
  }
  std::string url;
  url.reserve(def.pattern.size() + 16 * def.compiled.params.size());
  for (const detail::compiled_segment& seg : segments) {
    url += '/';
    if (seg.kind == segment_kind::literal) {
      detail::append_percent_encoded(url, seg.text, detail::path_slashes::escape);
      continue;
    }
    const url_arg* arg = find_arg(args, seg.text);
    if (arg == nullptr) return {{}, "a parameter of the route has no argument"};
    std::array<char, 24> scratch;
    std::string_view error;
    const std::string_view text = argument_text(*arg, seg.kind, scratch, error);
    if (!error.empty()) return {{}, error};
    append_parameter(url, text, seg.kind == segment_kind::rest);
  }
  if (url.empty()) url.push_back('/');
  return {std::move(url), {}};
}

}  // namespace

built_url router::url_for(std::string_view name, std::initializer_list<url_arg> args) const {
  const detail::epoch::read_section pin;
  const detail::route_table& t = scope_.state().acquire();
  const auto it = std::lower_bound(t.names.begin(), t.names.end(), name,
                                   [](const auto& entry, std::string_view n) { return entry.first < n; });
  if (it == t.names.end() || it->first != name) return {{}, "no route has that name"};
  return build(*it->second, args);
}

// Behind a proxy the client's origin is what the proxy forwarded (when it is
// trusted), not the connection's own, which is why this reads scheme() and host().
built_url router::url_for(const request& req, std::string_view name, std::initializer_list<url_arg> args) const {
  built_url path = url_for(name, args);
  if (!path) return path;
  if (req.host().empty()) return {{}, "the request names no host"};
  std::string absolute;
  absolute.reserve(req.scheme().size() + 3 + req.host().size() + path.url.size());
  absolute.append(req.scheme()).append("://").append(req.host()).append(path.url);
  path.url = std::move(absolute);
  return path;
}

}  // namespace stet
