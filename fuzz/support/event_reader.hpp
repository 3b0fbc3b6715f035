#pragma once
// Reads a text/event-stream the way a browser's EventSource does (WHATWG HTML,
// "Interpreting an event stream"), written from the specification and not
// from stet's writer, so a target can check that what stet writes for an
// event is read back as that event and nothing else.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace stet::fuzz {

/// One event as a client dispatches it.
struct read_event {
  std::string data;
  std::string id;    ///< the last event id buffer when the event was dispatched
  std::string type;  ///< empty: the client's "message"
};

/// What a client made of a stream: the events it dispatched, the reconnection
/// time it was given (if any), and every field name it saw (comments excluded).
struct event_reading {
  std::vector<read_event> events;
  std::optional<unsigned long long> retry;
  std::vector<std::string> fields;
};

namespace detail_events {

inline void process_field(event_reading& r, std::string_view name, std::string_view value, std::string& data,
                          std::string& type, std::string& id) {
  r.fields.emplace_back(name);
  if (name == "event") {
    type = value;
  } else if (name == "data") {
    data += value;
    data += '\n';
  } else if (name == "id") {
    if (value.find('\0') == std::string_view::npos) id = value;
  } else if (name == "retry") {
    if (!value.empty() && value.find_first_not_of("0123456789") == std::string_view::npos && value.size() < 19)
      r.retry = std::stoull(std::string(value));
  }
}

}  // namespace detail_events

/// Interprets `stream` (complete: a last line without its end is dropped, as a
/// client drops it when the stream ends).
inline event_reading read_event_stream(std::string_view stream) {
  event_reading r;
  std::string data;
  std::string type;
  std::string id;
  while (!stream.empty()) {
    const std::size_t eol = stream.find_first_of("\r\n");
    if (eol == std::string_view::npos) break;
    const std::string_view line = stream.substr(0, eol);
    const bool crlf = stream[eol] == '\r' && eol + 1 < stream.size() && stream[eol + 1] == '\n';
    stream.remove_prefix(eol + (crlf ? 2 : 1));
    if (line.empty()) {  // dispatch
      if (data.empty()) {
        type.clear();
        continue;
      }
      data.pop_back();
      r.events.push_back({data, id, type});
      data.clear();
      type.clear();
      continue;
    }
    if (line.front() == ':') continue;  // a comment
    const std::size_t colon = line.find(':');
    std::string_view name = line;
    std::string_view value;
    if (colon != std::string_view::npos) {
      name = line.substr(0, colon);
      value = line.substr(colon + 1);
      if (value.starts_with(' ')) value.remove_prefix(1);
    }
    detail_events::process_field(r, name, value, data, type, id);
  }
  return r;
}

/// `text` with each CRLF, lone CR and lone LF made one LF: the data a client
/// reads back for data sent as `text`.
inline std::string normalized_lines(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\r') {
      out += '\n';
      if (i + 1 < text.size() && text[i + 1] == '\n') ++i;
    } else {
      out += text[i];
    }
  }
  return out;
}

}  // namespace stet::fuzz
