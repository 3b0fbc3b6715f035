#include <stet/multipart_form.hpp>

#include "request/form_access.hpp"

#include <algorithm>
#include <cstring>

namespace stet {

multipart_form::multipart_form(multipart_form_options limits)
    : limits_(limits), bytes_(std::make_unique_for_overwrite<char[]>(limits.max_total_bytes)) {}

bool multipart_form::append(std::string_view bytes) noexcept {
  if (bytes.size() > limits_.max_total_bytes - used_) return false;
  if (!bytes.empty()) std::memcpy(bytes_.get() + used_, bytes.data(), bytes.size());
  used_ += bytes.size();
  return true;
}

multipart_error multipart_form::too_large(const multipart_parser& parser, std::string_view detail) const {
  return {make_error_code(error::multipart_part_too_large), detail, parser.bytes_fed()};
}

multipart_error multipart_form::add(const multipart_parser& parser, const multipart_event& event) {
  switch (event.kind) {
    case multipart_event_kind::part_begin: {
      if (parser.part().is_file()) return {};
      const std::size_t name_start = used_;
      if (!append(parser.part().name)) return too_large(parser, "the text fields are over the form's total limit");
      name_ = std::string_view(bytes_.get() + name_start, used_ - name_start);
      value_start_ = used_;
      collecting_ = true;
      return {};
    }
    case multipart_event_kind::part_data:
      if (!collecting_) return {};
      if (event.data.size() > limits_.max_field_bytes - (used_ - value_start_)) {
        return too_large(parser, "a text field is over the form's field limit");
      }
      if (!append(event.data)) return too_large(parser, "the text fields are over the form's total limit");
      return {};
    case multipart_event_kind::part_end: {
      if (!collecting_) return {};
      collecting_ = false;
      const form_field field{name_, std::string_view(bytes_.get() + value_start_, used_ - value_start_)};
      all_.push_back(field);
      const auto at = std::upper_bound(sorted_.begin(), sorted_.end(), field,
                                       [](const form_field& a, const form_field& b) { return a.name < b.name; });
      sorted_.insert(at, field);
      return {};
    }
    default: return {};
  }
}

form_data multipart_form::fields() const noexcept { return detail::form_access::make(all_, sorted_); }

multipart_error parse_multipart_form(std::string_view content_type, std::string_view body, multipart_form& form,
                                     multipart_options limits) {
  multipart_parser parser(content_type, limits);
  multipart_error failure;
  const auto take = [&](const multipart_event& e) {
    if (!failure) failure = form.add(parser, e);
  };
  parser.consume(body, take);
  if (parser.finish(take) == multipart_event_kind::failed) return parser.error();
  return failure;
}

}  // namespace stet
