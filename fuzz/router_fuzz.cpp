// Target 5: route matching over a fixed table, checked against a plain
// reading of every pattern. The input's first byte picks the method and the
// redirect options, the rest is the raw path (escapes intact). Properties:
//   - a matched route's pattern really matches the path, with the method (or
//     GET for HEAD), and its parameters are exactly the plain reading's: raw
//     values are views into the path, decoded ones equal its decoding;
//   - a route for the method that matches is always found (the trie's
//     precedence never hides one); 405/OPTIONS carry exactly the methods of
//     the routes that match; "not found" means no route matches;
//   - a redirect is offered only when the path with the slash toggled matches.

#include "http/percent.hpp"
#include "route/epoch.hpp"
#include "route/match.hpp"
#include "route/pattern.hpp"
#include "route/state.hpp"
#include "route/table.hpp"
#include "support/require.hpp"

#include <stet/router.hpp>

#include <algorithm>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <memory_resource>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace {

using stet::method;
using stet::detail::capture;
using stet::detail::segment_kind;
using stet::fuzz::require;

struct route {
  method m;
  std::string_view pattern;
};

// Literal beside parameters of every class, a catch-all, an escaped literal,
// a trailing slash, one path with several methods, a wide node (hashed
// lookup), and a pattern deep enough to hit the segment limit of a walk.
constexpr route table[] = {
    {method::get, "/"},
    {method::get, "/plaintext"},
    {method::post, "/echo"},
    {method::get, "/users/me"},
    {method::get, "/users/{id:int}"},
    {method::delete_, "/users/{id:int}"},
    {method::get, "/users/{name}/posts/{slug}"},
    {method::get, "/users/{id:int}/posts/{n:uint}"},
    {method::put, "/items/{code:alnum}"},
    {method::get, "/items/{word:alpha}"},
    {method::get, "/files/{path*}"},
    {method::post, "/files/upload"},
    {method::get, "/caf%C3%A9/menu"},
    {method::get, "/dir/"},
    {method::get, "/a/{x}/c/{y}/e/{z}"},
    {method::get, "/a/b/c/d/e/f/g/h"},
    {method::get, "/api/r0"},
    {method::get, "/api/r1"},
    {method::get, "/api/r2"},
    {method::get, "/api/r3"},
    {method::get, "/api/r4"},
    {method::get, "/api/r5"},
    {method::get, "/api/r6"},
    {method::get, "/api/r7"},
    {method::get, "/api/r8"},
    {method::get, "/api/r9"},
    {method::get, "/api/r10"},
    {method::post, "/api/r10"},
    {method::patch, "/api/{resource}/{id:uint}"},
};

constexpr method methods[] = {method::get,   method::head,    method::post,  method::put,    method::delete_,
                              method::patch, method::options, method::trace, method::connect};

struct compiled_route {
  method m;
  std::string_view pattern;
  stet::detail::compiled_pattern compiled;
};

struct fixture {
  std::vector<compiled_route> routes;
  std::shared_ptr<stet::detail::router_state> with_redirects;
  std::shared_ptr<stet::detail::router_state> without_redirects;
};

std::shared_ptr<stet::detail::router_state> build(stet::router_options options) {
  auto state = std::make_shared<stet::detail::router_state>(options);
  const stet::detail::route_scope scope(state, "", state->root);
  for (const route& r : table) {
    scope.add(r.m, r.pattern, {}, stet::detail::make_handler_box([](stet::request&) { return stet::response(); }));
  }
  return state;
}

const fixture& the_fixture() {
  static const fixture f = [] {
    fixture out;
    for (const route& r : table) out.routes.push_back({r.m, r.pattern, stet::detail::compile_pattern(r.m, r.pattern)});
    out.with_redirects = build({true, true});
    out.without_redirects = build({false, false});
    return out;
  }();
  return f;
}

// --- the plain reading ---------------------------------------------------

template <class Int>
bool whole_number(std::string_view s, std::uint64_t& bits) {
  Int v{};
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty()) return false;
  bits = static_cast<std::uint64_t>(v);
  return true;
}

bool all_of_class(std::string_view s, bool digits_too) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [&](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (digits_too && c >= '0' && c <= '9');
  });
}

bool segment_fits(segment_kind k, std::string_view literal, std::string_view s, std::uint64_t& bits) {
  switch (k) {
    case segment_kind::literal: return s == literal;
    case segment_kind::int64: return whole_number<std::int64_t>(s, bits);
    case segment_kind::uint64: return whole_number<std::uint64_t>(s, bits);
    case segment_kind::alpha: return all_of_class(s, false);
    case segment_kind::alnum: return all_of_class(s, true);
    case segment_kind::text: return !s.empty();
    case segment_kind::rest: return true;
  }
  return false;
}

// The parameters `p` binds for `path`, or nullopt when it does not match.
std::optional<std::vector<capture>> plain_match(const stet::detail::compiled_pattern& p, std::string_view path,
                                                std::pmr::memory_resource& arena) {
  if (path.empty() || path.front() != '/') return std::nullopt;
  std::vector<std::string_view> raw;  // "/" has no segments; "/a/" has "a" and ""
  for (std::size_t from = 1; path.size() > 1;) {
    const std::size_t slash = std::min(path.find('/', from), path.size());
    raw.push_back(path.substr(from, slash - from));
    if (slash == path.size()) break;
    from = slash + 1;
  }
  const bool catch_all = !p.segments.empty() && p.segments.back().kind == segment_kind::rest;
  if (catch_all ? raw.size() < p.segments.size() : raw.size() != p.segments.size()) return std::nullopt;
  std::vector<capture> out;
  for (std::size_t i = 0; i < p.segments.size(); ++i) {
    const auto& seg = p.segments[i];
    // A catch-all takes the rest of the path, slashes included.
    const std::string_view text =
        seg.kind == segment_kind::rest ? path.substr(static_cast<std::size_t>(raw[i].data() - path.data())) : raw[i];
    const std::optional<std::string_view> decoded = stet::detail::percent_decode_path(text, arena);
    if (!decoded) return std::nullopt;
    std::uint64_t bits = 0;
    if (!segment_fits(seg.kind, seg.text, *decoded, bits)) return std::nullopt;
    if (seg.kind != segment_kind::literal) out.push_back({*decoded, text, bits});
  }
  return out;
}

std::string toggled_slash(std::string_view path) {
  if (!path.empty() && path.back() == '/') return std::string(path.substr(0, path.size() - 1));
  return std::string(path) + "/";
}

bool answers(method route_method, method asked) {
  return route_method == asked || (asked == method::head && route_method == method::get);
}

void check_captures(const std::vector<capture>& expected, const capture* got, std::size_t count,
                    std::string_view path) {
  require(count == expected.size(), "every parameter is captured", path);
  for (std::size_t i = 0; i < count; ++i) {
    require(stet::fuzz::is_view_into(got[i].raw, path), "a parameter's raw text is a view into the path", path);
    require(got[i].raw == expected[i].raw && got[i].value == expected[i].value, "parameters as a plain reading", path);
    require(got[i].raw.find('%') != std::string_view::npos || stet::fuzz::is_view_into(got[i].value, path),
            "an unescaped parameter is not copied", path);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const fixture& f = the_fixture();
  const method m = methods[(data[0] & 0x7f) % std::size(methods)];
  const bool redirects = (data[0] & 0x80) != 0;
  const std::string_view path(reinterpret_cast<const char*>(data) + 1, size - 1);

  std::pmr::monotonic_buffer_resource arena;
  const stet::detail::epoch::read_section pin;
  const stet::detail::route_table& t = (redirects ? f.with_redirects : f.without_redirects)->acquire();
  stet::detail::capture_buffer buffer;
  const stet::detail::match_outcome o = stet::detail::match_path(t, m, path, arena, buffer.items);

  std::uint16_t matching_methods = 0;
  bool routable = false;
  for (const compiled_route& r : f.routes) {
    if (!plain_match(r.compiled, path, arena)) continue;
    matching_methods |= stet::detail::method_bit(r.m);
    routable = routable || answers(r.m, m);
  }
  using kind = stet::detail::match_outcome::kind;
  if (o.what == kind::route) {
    const stet::detail::route_def& def = *o.entry->def;
    require(answers(def.method, m), "the route answers the method", path);
    const auto expected = plain_match(def.compiled, path, arena);
    require(expected.has_value(), "the route's pattern matches the path", path);
    check_captures(*expected, buffer.items, o.captured, path);
    return 0;
  }
  require(!routable, "a matching route for the method is always found", path);
  if (o.what == kind::not_allowed || o.what == kind::options) {
    if (path == "*") return 0;  // OPTIONS *: every method of the table
    require(o.allow == matching_methods && o.allow != 0, "Allow lists the methods of the matching routes", path);
    return 0;
  }
  if (o.what == kind::redirect) {
    require(redirects, "redirects only when asked for", path);
    const std::string other = toggled_slash(path);
    bool found = false;
    for (const compiled_route& r : f.routes) found = found || plain_match(r.compiled, other, arena).has_value();
    require(found, "a redirect leads to a path that matches", path);
    return 0;
  }
  require(matching_methods == 0, "not found means no route matches", path);
  return 0;
}
