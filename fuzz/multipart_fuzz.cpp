// Target 7: the streaming multipart/form-data parser. Properties: the body fed
// in one piece and fed in the pieces of the input's split plan gives the same
// parts and the same outcome (each piece lives in its own heap buffer freed
// after use, so ASan catches a view that outlives its piece); a body that
// parsed, rebuilt from its parts, parses to the same parts; every filename
// sanitises to one safe name; the text-field collector copes with any events.

#include "support/multipart_collect.hpp"
#include "support/require.hpp"
#include "support/splits.hpp"

#include <stet/multipart.hpp>
#include <stet/multipart_form.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace {

using stet::fuzz::require;
using stet::test::multipart_outcome;

constexpr std::string_view content_type = "multipart/form-data; boundary=fz";

stet::multipart_options small_limits() {
  stet::multipart_options l;
  l.max_parts = 8;
  l.max_header_bytes = 512;
  l.max_header_count = 6;
  l.max_part_bytes = 4096;
  return l;
}

// Only complete parts are comparable after an error: how much of a failing
// part was handed out before the error depends on where the pieces were cut.
multipart_outcome comparable(multipart_outcome o) {
  o.error_offset = 0;
  if (o.error) {
    while (!o.parts.empty() && !o.parts.back().ended) o.parts.pop_back();
  }
  return o;
}

std::string rebuild(const multipart_outcome& o) {
  std::string body;
  for (const stet::test::collected_part& p : o.parts) {
    body += "--fz\r\n";
    for (const auto& [name, value] : p.headers) body += name + ":" + value + "\r\n";  // never longer than sent
    body += "\r\n" + p.data + "\r\n";
  }
  return body + "--fz--";
}

void check_filename(const std::string& raw, std::string_view input) {
  const std::string safe = stet::sanitize_filename(raw, "fallback");
  require(!safe.empty() && safe.size() <= 255, "a sanitised name is 1 to 255 bytes", input);
  require(safe != "." && safe != ".." && safe.front() != '.', "a sanitised name is not a dot name", input);
  for (char c : safe) {
    const auto u = static_cast<unsigned char>(c);
    require(c != '/' && c != '\\' && u >= 0x20 && u != 0x7f, "a sanitised name has no separator or control", input);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const stet::fuzz::split_input in = stet::fuzz::take_splits(data, size);
  const multipart_outcome whole = stet::test::parse_multipart_whole(content_type, in.payload, small_limits());
  const multipart_outcome split =
      stet::test::parse_multipart_in_pieces(content_type, in.payload, in.pieces, small_limits());
  require(whole.violation.empty() && split.violation.empty(), "events come in order",
          whole.violation + split.violation);
  require(whole.done != static_cast<bool>(whole.error), "a body ends done or failed", in.payload);
  require(comparable(whole) == comparable(split), "the split does not change the outcome", in.payload);

  for (const stet::test::collected_part& p : whole.parts) {
    require(!p.name.empty(), "every part has a name", in.payload);
    if (p.filename) check_filename(*p.filename, in.payload);
  }
  if (whole.done) {
    const multipart_outcome again = stet::test::parse_multipart_whole(content_type, rebuild(whole), small_limits());
    require(again.done && again.parts == whole.parts, "a rebuilt body parses to the same parts", in.payload);
  }

  stet::multipart_form_options form_limits;
  form_limits.max_field_bytes = 256;
  form_limits.max_total_bytes = 1024;
  stet::multipart_form form(form_limits);
  const stet::multipart_error e = stet::parse_multipart_form(content_type, in.payload, form, small_limits());
  require(!e || e.status() == stet::status::bad_request || e.status() == stet::status::payload_too_large,
          "a multipart error is a 400 or a 413", in.payload);
  return 0;
}
