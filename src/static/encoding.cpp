#include "static/encoding.hpp"

#include <array>
#include <span>

namespace stet::detail {

sibling_coding choose_coding(const accept_weights& w, bool have_br, bool have_gzip) noexcept {
  std::array<content_coding, 2> offered{};
  std::size_t count = 0;
  if (have_br) offered[count++] = content_coding::br;
  if (have_gzip) offered[count++] = content_coding::gzip;
  if (count == 0) return sibling_coding::identity;
  switch (negotiate(w, std::span(offered.data(), count)).coding) {
    case content_coding::br: return sibling_coding::br;
    case content_coding::gzip: return sibling_coding::gzip;
    default: return sibling_coding::identity;
  }
}

}  // namespace stet::detail
