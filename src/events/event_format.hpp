#pragma once
// The wire form of server-sent events (WHATWG HTML 9.2.6): fields one to a
// line, `data` split at every CR, LF or CRLF into `data:` lines, an event
// ended by a blank line. Pure functions: no sockets, no state.

#include <stet/events.hpp>

#include <chrono>
#include <string>
#include <string_view>

namespace stet::detail {

/// Whether `value` may stand in an `id:` or `event:` line: no CR, LF or NUL.
bool valid_event_field(std::string_view value) noexcept;

/// Appends `: text` and the blank line (CR and LF become spaces).
/// @throws std::bad_alloc
void append_event_comment(std::string& out, std::string_view text);

/// Appends `retry: N` and the blank line.
/// @throws std::bad_alloc
void append_event_retry(std::string& out, std::chrono::milliseconds retry);

/// Appends `event: gap` with the id the client gave as its data: the history
/// no longer reaches back to it, so events between it and the first one
/// that follows are missing.
/// @throws std::bad_alloc
void append_gap_event(std::string& out, std::string_view last_id);

}  // namespace stet::detail
