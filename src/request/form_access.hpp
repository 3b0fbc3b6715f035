#pragma once
// How the library builds a stet::form_data over spans it owns elsewhere
// (urlencoded forms in the request arena, multipart text fields in a
// multipart_form).

#include <stet/form.hpp>

#include <span>

namespace stet::detail {

struct form_access {
  static form_data make(std::span<const form_field> all, std::span<const form_field> sorted) noexcept {
    return form_data(all, sorted);
  }
};

}  // namespace stet::detail
