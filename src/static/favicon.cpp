#include "static/favicon.hpp"

#include <cstdint>

namespace stet::detail {
namespace {

void put16(std::string& out, std::uint16_t v) {
  out.push_back(static_cast<char>(v & 0xff));
  out.push_back(static_cast<char>(v >> 8));
}

void put32(std::string& out, std::uint32_t v) {
  put16(out, static_cast<std::uint16_t>(v & 0xffff));
  put16(out, static_cast<std::uint16_t>(v >> 16));
}

}  // namespace

// Generated rather than embedded as a byte blob, so what it looks like is
// readable here: ICONDIR, one ICONDIRENTRY, a BITMAPINFOHEADER (height doubled
// for the AND mask), bottom-up BGRA rows, then an all-zero AND mask (alpha rules).
std::string make_default_favicon() {
  constexpr int side = 16;
  constexpr std::uint32_t pixel_bytes = side * side * 4;
  constexpr std::uint32_t mask_bytes = side * 4;  // 16 bits a row, padded to 32
  constexpr std::uint32_t image_bytes = 40 + pixel_bytes + mask_bytes;
  std::string out;
  out.reserve(6 + 16 + image_bytes);
  put16(out, 0);  // ICONDIR: reserved, type 1 (icon), one image
  put16(out, 1);
  put16(out, 1);
  out.push_back(static_cast<char>(side));  // ICONDIRENTRY
  out.push_back(static_cast<char>(side));
  out.push_back(0);  // no palette
  out.push_back(0);
  put16(out, 1);   // planes
  put16(out, 32);  // bits per pixel
  put32(out, image_bytes);
  put32(out, 6 + 16);    // offset of the image
  put32(out, 40);        // BITMAPINFOHEADER
  put32(out, side);      // width
  put32(out, side * 2);  // height: XOR image + AND mask
  put16(out, 1);         // planes
  put16(out, 32);        // bits per pixel
  put32(out, 0);         // BI_RGB
  put32(out, pixel_bytes + mask_bytes);
  for (int i = 0; i < 4; ++i) put32(out, 0);  // resolution, palette sizes
  for (int y = 0; y < side; ++y) {
    for (int x = 0; x < side; ++x) {
      const int dx = 2 * x + 1 - side;
      const int dy = 2 * y + 1 - side;
      const bool inside = dx * dx + dy * dy <= (side - 2) * (side - 2);
      const char bgra[4] = {static_cast<char>(0xb0), 0x6c, 0x2b, static_cast<char>(inside ? 0xff : 0x00)};
      out.append(bgra, 4);
    }
  }
  out.append(mask_bytes, '\0');
  return out;
}

}  // namespace stet::detail
