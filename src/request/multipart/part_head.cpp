#include "request/multipart/part_head.hpp"

#include "http/percent.hpp"
#include "http/token.hpp"
#include "request/multipart/parameters.hpp"

#include <cstring>
#include <optional>

namespace stet::detail {
namespace {

// Where decoded parameter values go: each takes at most its raw size, so the
// whole header section's size is always enough.
class scratch_area {
 public:
  explicit scratch_area(std::span<char> bytes) noexcept : bytes_(bytes) {}
  std::span<char> copy_of(std::string_view raw) noexcept {
    char* out = bytes_.data() + used_;
    std::memcpy(out, raw.data(), raw.size());
    used_ += raw.size();
    return {out, raw.size()};
  }

 private:
  std::span<char> bytes_;
  std::size_t used_ = 0;
};

std::string_view unquoted(scratch_area& scratch, const parameter& p) noexcept {
  if (!p.quoted || p.value.find('\\') == std::string_view::npos) return p.value;
  const std::span<char> bytes = scratch.copy_of(p.value);
  return {bytes.data(), unescape_quoted(bytes)};
}

// RFC 8187 attr-char: what may appear unencoded in an ext-value.
constexpr std::array<bool, 256> attr_char_table = alnum_and("!#$&+-.^_`|~");

// RFC 8187 ext-value `charset'language'value-chars`, percent-decoded; nullopt
// (the parameter is then ignored, as RFC 6266 4.3 says) when it is quoted,
// malformed, or in a charset other than UTF-8 or US-ASCII.
std::optional<std::string_view> decode_ext_value(scratch_area& scratch, const parameter& p) noexcept {
  if (p.quoted) return std::nullopt;
  const std::size_t q1 = p.value.find('\'');
  const std::size_t q2 = q1 == std::string_view::npos ? q1 : p.value.find('\'', q1 + 1);
  if (q2 == std::string_view::npos) return std::nullopt;
  const std::string_view charset = p.value.substr(0, q1);
  if (!iequals(charset, "utf-8") && !iequals(charset, "us-ascii")) return std::nullopt;
  const std::string_view raw = p.value.substr(q2 + 1);
  for (std::size_t i = 0; i < raw.size(); ++i) {
    const bool escape = raw[i] == '%' && i + 2 < raw.size() && hex_value(raw[i + 1]) >= 0 && hex_value(raw[i + 2]) >= 0;
    if (escape) {
      i += 2;
    } else if (!attr_char_table[static_cast<unsigned char>(raw[i])]) {
      return std::nullopt;
    }
  }
  if (raw.find('%') == std::string_view::npos) return raw;
  const std::span<char> bytes = scratch.copy_of(raw);
  std::size_t out = 0;
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    if (bytes[i] == '%') {
      bytes[out++] = static_cast<char>(hex_value(bytes[i + 1]) * 16 + hex_value(bytes[i + 2]));
      i += 2;
    } else {
      bytes[out++] = bytes[i];
    }
  }
  return std::string_view(bytes.data(), out);
}

part_head_error parse_disposition(scratch_area& scratch, std::string_view value, multipart_part& part) noexcept {
  const type_and_parameters split = split_type(value);
  if (!iequals(split.type, "form-data")) {
    return {error::multipart_part_without_name, "the part's Content-Disposition is not form-data"};
  }
  parameter_reader reader(split.parameters);
  std::optional<parameter> name, filename, filename_ext;
  for (;;) {
    const parameter_step step = reader.next();
    if (step.status == parameter_status::end) break;
    if (step.status == parameter_status::malformed) {
      return {error::bad_multipart, "malformed Content-Disposition parameters"};
    }
    std::optional<parameter>* slot = iequals(step.param.name, "name")        ? &name
                                     : iequals(step.param.name, "filename")  ? &filename
                                     : iequals(step.param.name, "filename*") ? &filename_ext
                                                                             : nullptr;
    if (slot == nullptr) continue;
    if (slot->has_value()) return {error::bad_multipart, "a Content-Disposition parameter given twice"};
    *slot = step.param;
  }
  if (!name) return {error::multipart_part_without_name, "no name parameter in the part's Content-Disposition"};
  part.name = unquoted(scratch, *name);
  if (part.name.empty()) return {error::multipart_part_without_name, "an empty name in the part's Content-Disposition"};
  std::optional<std::string_view> ext;
  if (filename_ext) ext = decode_ext_value(scratch, *filename_ext);
  if (ext) {
    part.filename = ext;
  } else if (filename) {
    part.filename = unquoted(scratch, *filename);
  }
  return {};
}

struct field_line {
  multipart_header field;
  std::size_t next = 0;  // where the following line starts
  part_head_error error;
};

field_line read_line(std::string_view block, std::size_t start) noexcept {
  const std::size_t end = block.find_first_of("\r\n", start);
  if (end == std::string_view::npos || block[end] != '\r' || end + 1 >= block.size() || block[end + 1] != '\n') {
    return {{}, 0, {error::bad_multipart, "a bare CR or LF in a part header (lines end in CRLF)"}};
  }
  const std::string_view line = block.substr(start, end - start);
  if (line.empty()) return {{}, 0, {error::bad_multipart, "an empty line inside a part's header section"}};
  if (line.front() == ' ' || line.front() == '\t') {
    return {{}, 0, {error::bad_multipart, "a continuation line (obs-fold) in a part header"}};
  }
  const std::size_t colon = line.find(':');
  if (colon == std::string_view::npos) return {{}, 0, {error::bad_multipart, "a part header line without ':'"}};
  const multipart_header field{line.substr(0, colon), trim_ows(line.substr(colon + 1))};
  if (!is_token(field.name)) return {{}, 0, {error::bad_multipart, "a part header name that is not a token"}};
  if (!is_field_value(field.value)) {
    return {{}, 0, {error::bad_multipart, "a control character in a part header value"}};
  }
  return {field, end + 2, {}};
}

}  // namespace

part_head_error parse_part_head(std::string_view block, std::span<char> scratch, std::span<multipart_header> slots,
                                multipart_part& part) noexcept {
  const std::string_view text = block;
  std::size_t count = 0;
  std::optional<std::string_view> disposition, content_type;
  for (std::size_t pos = 0; pos < text.size();) {
    const field_line line = read_line(text, pos);
    if (line.error) return line.error;
    if (count == slots.size()) return {error::multipart_header_too_large, "more header fields in a part than allowed"};
    slots[count++] = line.field;
    pos = line.next;
    const bool is_disposition = iequals(line.field.name, "content-disposition");
    if (!is_disposition && !iequals(line.field.name, "content-type")) continue;
    std::optional<std::string_view>& known = is_disposition ? disposition : content_type;
    if (known) {
      return {error::bad_multipart,
              is_disposition ? "more than one Content-Disposition in a part" : "more than one Content-Type in a part"};
    }
    known = line.field.value;
  }
  part.headers = slots.first(count);
  part.content_type = content_type.value_or(std::string_view());
  if (!disposition) return {error::multipart_part_without_name, "no Content-Disposition in the part"};
  scratch_area area(scratch);
  return parse_disposition(area, *disposition, part);
}

}  // namespace stet::detail
