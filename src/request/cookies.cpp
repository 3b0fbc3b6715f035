// The Cookie header of a request, parsed into a cookie_jar. Building
// Set-Cookie values is src/response/set_cookie.cpp.
#include <stet/cookies.hpp>

#include "counters/memo_stats.hpp"
#include "request/arena.hpp"
#include "request/cookie_parse.hpp"
#include "request/field_index.hpp"

#include <algorithm>

namespace stet {

cookie_jar parse_cookie_header(std::string_view header, std::pmr::memory_resource& arena) {
  ++detail::this_thread_memo_stats().cookie_parses;
  const std::size_t most = static_cast<std::size_t>(std::count(header.begin(), header.end(), ';')) + 1;
  cookie* all = detail::arena_array<cookie>(arena, most);
  std::size_t n = 0;
  detail::for_each_cookie(header, [&](const cookie& c) { all[n++] = c; });
  const std::span<const cookie> arrival(all, n);
  return detail::cookie_access::make(arrival, detail::sorted_copy(arrival, arena));
}

}  // namespace stet
