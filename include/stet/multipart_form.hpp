#pragma once
/// @file
/// The text fields of a multipart/form-data body, collected into a
/// stet::form_data so a handler can get("title") as with request::form().

#include <stet/form.hpp>
#include <stet/multipart.hpp>

#include <cstddef>
#include <memory>
#include <string_view>
#include <vector>

namespace stet {

/// How much text a multipart_form keeps.
struct multipart_form_options {
  /// One text field's value; more is error::multipart_part_too_large (413).
  std::size_t max_field_bytes = 64 * 1024;
  /// Every text field's name and value together; more is
  /// error::multipart_part_too_large (413). Reserved once, at construction.
  std::size_t max_total_bytes = 1024 * 1024;
};

/// The earlier name (#26: option structs are named *_options): deprecated,
/// removed in the next release.
using multipart_form_limits [[deprecated("renamed multipart_form_options")]] = multipart_form_options;

/// Collects the parts without a filename (text fields) of a multipart body as
/// their events go by; file parts are left to the caller. Copies the text,
/// since the pieces it arrived in are released as the body streams.
class multipart_form {
 public:
  /// An empty form. @throws std::bad_alloc for its text buffer.
  explicit multipart_form(multipart_form_options limits = {});

  /// Takes the event `event` that `parser` just returned; pass every event in
  /// order (those of file parts and done/failed are ignored). Returns an
  /// error when a text field is over the limits; collect no further then.
  /// @throws std::bad_alloc when the field list cannot grow.
  multipart_error add(const multipart_parser& parser, const multipart_event& event);

  /// The complete text fields so far, in order and by name.
  /// @note Views into this object: valid until it is destroyed or add() is
  /// called again (moving it keeps them valid).
  form_data fields() const noexcept;

 private:
  multipart_error too_large(const multipart_parser& parser, std::string_view detail) const;
  bool append(std::string_view bytes) noexcept;

  multipart_form_options limits_;
  std::unique_ptr<char[]> bytes_;
  std::size_t used_ = 0;
  std::size_t value_start_ = 0;
  std::string_view name_;
  bool collecting_ = false;
  std::vector<form_field> all_;
  std::vector<form_field> sorted_;
};

/// Parses a whole buffered multipart body `body` (e.g. request::body()) with
/// `limits` and collects its text fields into `form`; file parts are parsed
/// and skipped. Returns the parser's or the form's error, if any.
/// @throws std::bad_alloc.
multipart_error parse_multipart_form(std::string_view content_type, std::string_view body, multipart_form& form,
                                     multipart_options limits = {});

}  // namespace stet
