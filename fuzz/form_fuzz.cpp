// Target 4: the application/x-www-form-urlencoded parser behind
// request::query() and request::form(). It never fails on content, never
// grows a component when decoding, and re-encoding what it decoded parses back
// to the same fields.

#include "support/field_list.hpp"
#include "support/percent_encode.hpp"
#include "support/require.hpp"

#include <stet/form.hpp>

#include <cstddef>
#include <cstdint>
#include <memory_resource>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using stet::fuzz::require;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::pmr::monotonic_buffer_resource arena;
  const stet::form_data form = stet::parse_urlencoded(text, arena);
  require(form.size() == stet::count_urlencoded_fields(text), "count_urlencoded_fields() predicts size()", text);
  std::size_t decoded_bytes = 0;
  for (const stet::form_field& f : form.all()) decoded_bytes += f.name.size() + f.value.size();
  require(decoded_bytes <= text.size(), "decoding never grows the text", text);
  stet::fuzz::check_field_list(form, text);

  // Every byte escaped: nothing in a name or value can be read as '&', '=' or '+'.
  std::string encoded;
  for (const stet::form_field& f : form.all()) {
    if (!encoded.empty()) encoded += '&';
    encoded += stet::fuzz::percent_encode_all(f.name);
    encoded += '=';
    encoded += stet::fuzz::percent_encode_all(f.value);
  }
  const stet::form_data again = stet::parse_urlencoded(encoded, arena);
  require(again.size() == form.size(), "a re-encoded form has as many fields", text);
  for (std::size_t i = 0; i < form.size(); ++i) {
    require(again.all()[i].name == form.all()[i].name && again.all()[i].value == form.all()[i].value,
            "a re-encoded form decodes to the same fields", text);
  }
  return 0;
}
