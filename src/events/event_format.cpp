#include "events/event_format.hpp"

#include <fmt/format.h>

#include <iterator>

namespace stet::detail {

bool valid_event_field(std::string_view value) noexcept {
  return value.find_first_of(std::string_view("\r\n\0", 3)) == std::string_view::npos;
}

void append_event_comment(std::string& out, std::string_view text) {
  out += ':';
  if (!text.empty()) out += ' ';
  for (const char c : text) out += (c == '\r' || c == '\n') ? ' ' : c;
  out += "\n\n";
}

void append_event_retry(std::string& out, std::chrono::milliseconds retry) {
  fmt::format_to(std::back_inserter(out), "retry: {}\n\n", retry.count());
}

void append_gap_event(std::string& out, std::string_view last_id) {
  // Ids reaching here were checked by the bus or come from the request's
  // header, which holds no CR or LF; data is split anyway by append_event.
  append_event(out, event{.data = last_id, .name = "gap"});
}

}  // namespace stet::detail

namespace stet {

// A line break in data is CR, LF or CRLF; each starts a new `data:` line, so
// "a\r\nb" and "a\nb" reach the client's data alike as "a\nb". Empty data is
// one empty `data:` line: the client still dispatches the event.
bool append_event(std::string& out, const event& e) {
  if (!detail::valid_event_field(e.id) || !detail::valid_event_field(e.name)) return false;
  if (!e.id.empty()) {
    out += "id: ";
    out += e.id;
    out += '\n';
  }
  if (!e.name.empty()) {
    out += "event: ";
    out += e.name;
    out += '\n';
  }
  std::string_view rest = e.data;
  for (;;) {
    const std::size_t br = rest.find_first_of("\r\n");
    out += "data: ";
    out += rest.substr(0, br);
    out += '\n';
    if (br == std::string_view::npos) break;
    const std::size_t skip = (rest[br] == '\r' && br + 1 < rest.size() && rest[br + 1] == '\n') ? 2 : 1;
    rest.remove_prefix(br + skip);
  }
  if (e.retry.count() > 0) fmt::format_to(std::back_inserter(out), "retry: {}\n", e.retry.count());
  out += '\n';
  return true;
}

}  // namespace stet
