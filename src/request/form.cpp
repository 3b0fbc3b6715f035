#include <stet/form.hpp>

#include <stet/error.hpp>

#include "http/percent.hpp"
#include "request/arena.hpp"
#include "request/field_index.hpp"
#include "request/form_access.hpp"
#include "counters/memo_stats.hpp"

namespace stet {
namespace {

// Calls visit(segment) for every non-empty '&'-separated segment.
template <typename Visit>
void for_each_segment(std::string_view text, Visit&& visit) {
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('&', pos);
    if (end == std::string_view::npos) end = text.size();
    if (end > pos) visit(text.substr(pos, end - pos));
    pos = end + 1;
  }
}

// Text without '+' or '%' is returned as is (no copy): the usual case for
// names and for ASCII values.
std::string_view decode_component(std::string_view raw, std::pmr::memory_resource& arena) {
  if (raw.find_first_of("+%") == std::string_view::npos) return raw;
  char* out = static_cast<char*>(arena.allocate(raw.size(), 1));
  std::size_t n = 0;
  for (std::size_t i = 0; i < raw.size(); ++i) {
    const char c = raw[i];
    if (c == '+') {
      out[n++] = ' ';
      continue;
    }
    if (c == '%' && i + 2 < raw.size()) {
      const int hi = detail::hex_value(raw[i + 1]);
      const int lo = detail::hex_value(raw[i + 2]);
      if (hi >= 0 && lo >= 0) {
        out[n++] = static_cast<char>(hi * 16 + lo);
        i += 2;
        continue;
      }
    }
    out[n++] = c;
  }
  return {out, n};
}

}  // namespace

std::size_t count_urlencoded_fields(std::string_view text) noexcept {
  std::size_t n = 0;
  for_each_segment(text, [&](std::string_view) { ++n; });
  return n;
}

form_data parse_urlencoded(std::string_view text, std::pmr::memory_resource& arena) {
  ++detail::this_thread_memo_stats().urlencoded_parses;
  const std::size_t n = count_urlencoded_fields(text);
  form_field* all = detail::arena_array<form_field>(arena, n);
  std::size_t i = 0;
  for_each_segment(text, [&](std::string_view segment) {
    const std::size_t eq = segment.find('=');
    const std::string_view name = segment.substr(0, eq);
    const std::string_view value = eq == std::string_view::npos ? std::string_view() : segment.substr(eq + 1);
    all[i++] = form_field{decode_component(name, arena), decode_component(value, arena)};
  });
  const std::span<const form_field> arrival(all, n);
  return detail::form_access::make(arrival, detail::sorted_copy(arrival, arena));
}

stet::status form_result::status() const noexcept {
  if (!error_) return status::ok;
  if (error_.category() == error_category()) return http_status(static_cast<stet::error>(error_.value()));
  return status::bad_request;
}

}  // namespace stet
