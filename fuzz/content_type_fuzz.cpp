// Target: Content-Type values as the body readers read them - the media type
// essence (request/media_type.hpp: form, JSON) and the multipart/form-data
// boundary parameter (multipart_boundary()), against a reference reading of
// RFC 9110 5.6.6 parameters and RFC 2046 5.1.1 boundaries written here.
// The input is the Content-Type value.
//
// Properties: the essence and the JSON / form predicates are the
// reference's; a boundary the reference reads is the one returned; a boundary
// returned (the reference may be stricter about what surrounds it) is 1 to 70
// bchars not ending in a space and views the value; a value that is not
// multipart/form-data is 415, a bad or missing boundary 400; and with the
// boundary returned, a one-part body built on it parses to that part.

#include "support/reference_text.hpp"
#include "support/require.hpp"

#include "request/media_type.hpp"

#include <stet/error.hpp>
#include <stet/multipart.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace {

using stet::fuzz::require;
using stet::fuzz::reference::lower;
using stet::fuzz::reference::tchar;
using stet::fuzz::reference::trim;

bool bchar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         std::string_view("'()+_,-./:=? ").find(c) != std::string_view::npos;
}

bool is_boundary(std::string_view b) {
  if (b.empty() || b.size() > 70 || b.back() == ' ') return false;
  for (const char c : b) {
    if (!bchar(c)) return false;
  }
  return true;
}

// What the reference makes of the value's boundary.
struct reference_boundary {
  bool multipart = false;            // the media type is multipart/form-data
  std::optional<std::string> value;  // the boundary, when the parameters are well formed and name exactly one
};

// RFC 9110 5.6.6: parameters = *( OWS ";" OWS [ parameter ] ), parameter =
// token "=" ( token / quoted-string ); no whitespace around "=".
reference_boundary read_reference(std::string_view content_type) {
  reference_boundary r;
  const std::size_t semi = content_type.find(';');
  r.multipart = lower(trim(content_type.substr(0, semi))) == "multipart/form-data";
  if (!r.multipart || semi == std::string_view::npos) return r;
  std::string_view rest = content_type.substr(semi);
  std::optional<std::string> boundary;
  std::size_t boundaries = 0;
  while (true) {
    rest = trim(rest);
    if (rest.empty()) break;
    if (rest.front() != ';') return r;
    rest = trim(rest.substr(1));
    if (rest.empty() || rest.front() == ';') continue;
    std::size_t i = 0;
    while (i < rest.size() && tchar(rest[i])) ++i;
    if (i == 0 || i == rest.size() || rest[i] != '=') return r;
    const std::string name = lower(rest.substr(0, i));
    rest.remove_prefix(i + 1);
    std::string value;
    if (!rest.empty() && rest.front() == '"') {
      std::size_t j = 1;
      bool closed = false;
      bool escaped = false;
      for (; j < rest.size(); ++j) {
        const char c = rest[j];
        if (c == '\\' && j + 1 < rest.size()) {
          value += rest[++j];
          escaped = true;
        } else if (c == '"') {
          closed = true;
          break;
        } else {
          value += c;
        }
      }
      if (!closed) return r;
      // Documented: a quoted boundary may not hold a backslash (it is no bchar),
      // even as a quoted-pair that RFC 9110 would unescape.
      if (escaped) value = "\\";
      rest.remove_prefix(j + 1);
    } else {
      std::size_t j = 0;
      while (j < rest.size() && tchar(rest[j])) ++j;
      if (j == 0) return r;
      value = rest.substr(0, j);
      rest.remove_prefix(j);
    }
    if (name == "boundary") {
      ++boundaries;
      boundary = value;
    }
  }
  if (boundaries == 1 && is_boundary(*boundary)) r.value = boundary;
  return r;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view value(reinterpret_cast<const char*>(data), size);

  const std::string_view essence = stet::detail::media_type_essence(value);
  require(essence == trim(value.substr(0, value.find(';'))), "the essence is the trimmed text before ';'", value);
  const std::string e = lower(essence);
  require(stet::detail::is_urlencoded_media_type(value) == (e == "application/x-www-form-urlencoded"),
          "the form media type, any case, any parameters", value);
  const bool json = e == "application/json" || (e.size() > 17 && e.starts_with("application/") && e.ends_with("+json"));
  require(stet::detail::is_json_media_type(value) == json, "application/json or application/*+json", value);

  const stet::multipart_boundary_result got = stet::multipart_boundary(value);
  const reference_boundary ref = read_reference(value);
  if (!ref.multipart) {
    require(got.error.code == stet::error::unsupported_media_type, "not multipart/form-data: 415", value);
    return 0;
  }
  if (ref.value) {
    require(!got.error && got.boundary == *ref.value, "the boundary the reference reads", value);
  }
  if (got.error) {
    require(got.error.code == stet::error::bad_multipart_boundary && got.boundary.empty(),
            "a missing or bad boundary: 400", value);
    return 0;
  }
  require(is_boundary(got.boundary), "a boundary is 1 to 70 bchars, not ending in a space", value);
  require(
      got.boundary.data() >= value.data() && got.boundary.data() + got.boundary.size() <= value.data() + value.size(),
      "the boundary views the value", value);

  const std::string b(got.boundary);
  const std::string body =
      "--" + b + "\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nx-" + b + "\r\n--" + b + "--\r\n";
  stet::multipart_parser parser(value);
  std::string name;
  std::string part;
  bool done = false;
  parser.consume(body, [&](const stet::multipart_event& ev) {
    if (ev.kind == stet::multipart_event_kind::part_begin) name = std::string(parser.part().name);
    if (ev.kind == stet::multipart_event_kind::part_data) part.append(ev.data);
    if (ev.kind == stet::multipart_event_kind::done) done = true;
  });
  parser.finish([&](const stet::multipart_event& ev) {
    if (ev.kind == stet::multipart_event_kind::done) done = true;
  });
  require(static_cast<bool>(parser) && done && name == "a" && part == "x-" + b, "a body built on the boundary parses",
          value);
  return 0;
}
