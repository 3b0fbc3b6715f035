#pragma once
// The two encoders stet::json is measured against, written the way such code is
// usually written by hand: std::ostringstream with operator<<, and fmt::format_to
// with a char-by-char escaping loop. Neither validates UTF-8 or handles NaN; the
// benchmark document needs neither.

#include "support/json_document.hpp"

#include <fmt/format.h>

#include <iomanip>
#include <iterator>
#include <sstream>
#include <string>
#include <string_view>

namespace bench_json {

// --- std::ostringstream ---------------------------------------------------------

inline void stream_string(std::ostream& os, std::string_view s) {
  os << '"';
  for (char c : s) {
    switch (c) {
      case '"': os << "\\\""; break;
      case '\\': os << "\\\\"; break;
      case '\n': os << "\\n"; break;
      case '\r': os << "\\r"; break;
      case '\t': os << "\\t"; break;
      case '\b': os << "\\b"; break;
      case '\f': os << "\\f"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          os << "\\u" << std::hex << std::setw(4) << std::setfill('0') << static_cast<int>(c) << std::dec;
        } else {
          os << c;
        }
    }
  }
  os << '"';
}

inline void stream_user(std::ostream& os, const user& u) {
  os << "{\"id\":" << u.id << ",\"name\":";
  stream_string(os, u.name);
  os << ",\"email\":";
  stream_string(os, u.email);
  os << ",\"active\":" << (u.active ? "true" : "false") << ",\"score\":" << u.score << ",\"nickname\":";
  if (u.nickname) {
    stream_string(os, *u.nickname);
  } else {
    os << "null";
  }
  os << ",\"tags\":[";
  for (std::size_t i = 0; i < u.tags.size(); ++i) {
    if (i) os << ',';
    stream_string(os, u.tags[i]);
  }
  const address& a = u.home;
  os << "],\"address\":{\"street\":";
  stream_string(os, a.street);
  os << ",\"city\":";
  stream_string(os, a.city);
  os << ",\"country\":";
  stream_string(os, a.country);
  os << ",\"postcode\":";
  stream_string(os, a.postcode);
  os << ",\"lat\":" << a.lat << ",\"lng\":" << a.lng << "},\"bio\":";
  stream_string(os, u.bio);
  os << ",\"orders\":[";
  for (std::size_t o = 0; o < u.orders.size(); ++o) {
    const order& ord = u.orders[o];
    if (o) os << ',';
    os << "{\"id\":" << ord.id << ",\"status\":";
    stream_string(os, ord.status);
    os << ",\"total\":" << ord.total << ",\"items\":[";
    for (std::size_t i = 0; i < ord.items.size(); ++i) {
      const line_item& item = ord.items[i];
      if (i) os << ',';
      os << "{\"sku\":";
      stream_string(os, item.sku);
      os << ",\"title\":";
      stream_string(os, item.title);
      os << ",\"quantity\":" << item.quantity << ",\"unit_price\":" << item.unit_price << '}';
    }
    os << "]}";
  }
  os << "]}";
}

inline std::string encode_ostream(const document& d) {
  std::ostringstream os;
  os << std::setprecision(17);  // max_digits10: round-trips, but is not the shortest form
  os << "{\"page\":" << d.page << ",\"per_page\":" << d.per_page << ",\"total\":" << d.total << ",\"generated_at\":";
  stream_string(os, d.generated_at);
  os << ",\"users\":[";
  for (std::size_t i = 0; i < d.users.size(); ++i) {
    if (i) os << ',';
    stream_user(os, d.users[i]);
  }
  os << "]}";
  return os.str();
}

// --- fmt::format_to -------------------------------------------------------------

using fmt_out = std::back_insert_iterator<fmt::memory_buffer>;

inline void fmt_string(fmt::memory_buffer& b, std::string_view s) {
  b.push_back('"');
  for (char c : s) {
    switch (c) {
      case '"': fmt::format_to(fmt_out(b), "\\\""); break;
      case '\\': fmt::format_to(fmt_out(b), "\\\\"); break;
      case '\n': fmt::format_to(fmt_out(b), "\\n"); break;
      case '\r': fmt::format_to(fmt_out(b), "\\r"); break;
      case '\t': fmt::format_to(fmt_out(b), "\\t"); break;
      case '\b': fmt::format_to(fmt_out(b), "\\b"); break;
      case '\f': fmt::format_to(fmt_out(b), "\\f"); break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          fmt::format_to(fmt_out(b), "\\u{:04x}", static_cast<int>(c));
        } else {
          b.push_back(c);
        }
    }
  }
  b.push_back('"');
}

inline void fmt_user(fmt::memory_buffer& b, const user& u) {
  fmt::format_to(fmt_out(b), "{{\"id\":{},\"name\":", u.id);
  fmt_string(b, u.name);
  fmt::format_to(fmt_out(b), ",\"email\":");
  fmt_string(b, u.email);
  fmt::format_to(fmt_out(b), ",\"active\":{},\"score\":{},\"nickname\":", u.active, u.score);
  if (u.nickname) {
    fmt_string(b, *u.nickname);
  } else {
    fmt::format_to(fmt_out(b), "null");
  }
  fmt::format_to(fmt_out(b), ",\"tags\":[");
  for (std::size_t i = 0; i < u.tags.size(); ++i) {
    if (i) b.push_back(',');
    fmt_string(b, u.tags[i]);
  }
  const address& a = u.home;
  fmt::format_to(fmt_out(b), "],\"address\":{{\"street\":");
  fmt_string(b, a.street);
  fmt::format_to(fmt_out(b), ",\"city\":");
  fmt_string(b, a.city);
  fmt::format_to(fmt_out(b), ",\"country\":");
  fmt_string(b, a.country);
  fmt::format_to(fmt_out(b), ",\"postcode\":");
  fmt_string(b, a.postcode);
  fmt::format_to(fmt_out(b), ",\"lat\":{},\"lng\":{}}},\"bio\":", a.lat, a.lng);
  fmt_string(b, u.bio);
  fmt::format_to(fmt_out(b), ",\"orders\":[");
  for (std::size_t o = 0; o < u.orders.size(); ++o) {
    const order& ord = u.orders[o];
    if (o) b.push_back(',');
    fmt::format_to(fmt_out(b), "{{\"id\":{},\"status\":", ord.id);
    fmt_string(b, ord.status);
    fmt::format_to(fmt_out(b), ",\"total\":{},\"items\":[", ord.total);
    for (std::size_t i = 0; i < ord.items.size(); ++i) {
      const line_item& item = ord.items[i];
      if (i) b.push_back(',');
      fmt::format_to(fmt_out(b), "{{\"sku\":");
      fmt_string(b, item.sku);
      fmt::format_to(fmt_out(b), ",\"title\":");
      fmt_string(b, item.title);
      fmt::format_to(fmt_out(b), ",\"quantity\":{},\"unit_price\":{}}}", item.quantity, item.unit_price);
    }
    fmt::format_to(fmt_out(b), "]}}");
  }
  fmt::format_to(fmt_out(b), "]}}");
}

// Appends to a caller-owned buffer, as stet's writer does, so buffer reuse is equal.
inline void encode_fmt(fmt::memory_buffer& b, const document& d) {
  fmt::format_to(fmt_out(b), "{{\"page\":{},\"per_page\":{},\"total\":{},\"generated_at\":", d.page, d.per_page,
                 d.total);
  fmt_string(b, d.generated_at);
  fmt::format_to(fmt_out(b), ",\"users\":[");
  for (std::size_t i = 0; i < d.users.size(); ++i) {
    if (i) b.push_back(',');
    fmt_user(b, d.users[i]);
  }
  fmt::format_to(fmt_out(b), "]}}");
}

}  // namespace bench_json
