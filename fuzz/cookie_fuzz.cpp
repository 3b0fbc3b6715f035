// Target 3: the Cookie header parser and the per-thread cache in front of it.
// Every cookie is a view into the header it came from (also when the parse
// came from the cache), holds a token name and a legal value, and the cache
// answers exactly what a fresh parse does.

#include "http/token.hpp"
#include "request/cookie_cache.hpp"
#include "request/cookie_parse.hpp"
#include "support/field_list.hpp"
#include "support/require.hpp"

#include <stet/cookies.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory_resource>
#include <string>
#include <string_view>

namespace {

using stet::fuzz::require;

void check_jar(const stet::cookie_jar& jar, std::string_view header) {
  const auto pairs = static_cast<std::size_t>(std::count(header.begin(), header.end(), ';')) + 1;
  require(jar.size() <= pairs, "at most one cookie per ';'-separated pair", header);
  for (const stet::cookie& c : jar.all()) {
    require(stet::fuzz::is_view_into(c.name, header) && stet::fuzz::is_view_into(c.value, header),
            "names and values are views into the header", header);
    require(stet::detail::is_token(c.name), "a cookie name is a token", header);
    require(stet::detail::is_received_cookie_value(c.value), "a cookie value holds no control byte, ';' or '\"'",
            header);
  }
  stet::fuzz::check_field_list(jar, header);
}

bool same_cookies(const stet::cookie_jar& a, const stet::cookie_jar& b) {
  return std::equal(
      a.all().begin(), a.all().end(), b.all().begin(), b.all().end(),
      [](const stet::cookie& x, const stet::cookie& y) { return x.name == y.name && x.value == y.value; });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view header(reinterpret_cast<const char*>(data), size);
  // The arena starts in a buffer kept for the process, as a request's starts
  // in its connection's: a big header's jars then take no fresh heap blocks,
  // which ASan zero-fills and faults in anew for every input (its quarantine
  // never hands a freed one back). Only what outgrows it comes from the heap.
  alignas(std::max_align_t) static std::array<std::byte, 512 * 1024> first_buffer;
  std::pmr::monotonic_buffer_resource arena(first_buffer.data(), first_buffer.size());
  const stet::cookie_jar parsed = stet::parse_cookie_header(header, arena);
  check_jar(parsed, header);

  // A second request with the same bytes in another buffer: a cache hit must
  // rebuild its views against *this* buffer, never hand out the first one's.
  const std::string first(header);
  const std::string second(header);
  const stet::cookie_jar missed = stet::detail::cached_cookie_jar(first, arena);
  const stet::cookie_jar hit = stet::detail::cached_cookie_jar(second, arena);
  check_jar(missed, first);
  check_jar(hit, second);
  require(same_cookies(parsed, missed) && same_cookies(parsed, hit), "the cache answers as a fresh parse", header);
  if (size <= stet::detail::cookie_cache_max_header_bytes) {
    require(stet::detail::cookie_cache_contains(header), "a header up to 8 KiB is cached", header);
  }
  require(stet::detail::cookie_cache_size() <= stet::detail::cookie_cache_capacity, "the cache stays bounded", header);
  return 0;
}
