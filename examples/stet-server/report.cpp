#include "report.hpp"

#include <stet/json.hpp>
#include <stet/response.hpp>

#include <array>
#include <cstdint>
#include <string_view>

namespace stet_server {
namespace {

// A fixed linear congruential sequence: the document is the same on every
// request and every machine, yet its numbers look like data, not a pattern.
class sequence {
 public:
  std::uint32_t next() noexcept {
    state_ = state_ * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<std::uint32_t>(state_ >> 33);
  }
  std::uint32_t below(std::uint32_t n) noexcept { return next() % n; }

 private:
  std::uint64_t state_ = 20240601;
};

constexpr std::array<std::string_view, 6> regions = {"North", "South", "East", "West", "Central", "Overseas"};
constexpr std::array<std::string_view, 8> products = {"Widget \"Pro\"", "Gadget\\Mini",    "Sprocket\t(bulk)",
                                                      "Gizmo — deluxe", "Doohickey\nv2",   "Thingamajig ✓",
                                                      "Whatsit <b>",    "Contraption & co"};
constexpr std::array<std::string_view, 4> notes = {
    "On target.", "Supplier said: \"late again\"; see C:\\reports\\q3.txt", "Line one\nline two\ttabbed",
    "Unicode: café, naïve, 東京, emoji 🚀; control \x01 byte"};

void write_store(stet::json::writer& w, sequence& s, int region, int store) {
  w.begin_object();
  w.member("id", region * 100 + store);
  w.member("name", std::string_view(regions[static_cast<std::size_t>(region)]));
  w.member("open", s.below(10) != 0);
  w.member("manager", notes[s.below(notes.size())]);
  w.key("sales").begin_array();
  for (std::size_t p = 0; p < products.size(); ++p) {
    const std::uint32_t units = s.below(5000);
    w.begin_object();
    w.member("product", products[p]);
    w.member("units", units);
    w.member("unit_price", static_cast<double>(100 + s.below(90000)) / 100.0);
    w.member("growth", (static_cast<double>(s.below(2001)) - 1000.0) / 1000.0);
    w.key("monthly").begin_array();
    for (int m = 0; m < 3; ++m) w.number(units / 3 + s.below(50));
    w.end_array();
    w.end_object();
  }
  w.end_array();
  w.end_object();
}

}  // namespace

void write_report(stet::json::writer& w) {
  sequence s;
  w.begin_object();
  w.member("title", "Quarterly sales \"Q3\" report");
  w.member("generated", "2024-10-01T00:00:00Z");
  w.member("currency", "EUR");
  w.key("regions").begin_array();
  for (int r = 0; r < static_cast<int>(regions.size()); ++r) {
    w.begin_object();
    w.member("region", regions[static_cast<std::size_t>(r)]);
    w.member("code", r);
    w.key("stores").begin_array();
    for (int store = 0; store < 11; ++store) write_store(w, s, r, store);
    w.end_array();
    w.end_object();
  }
  w.end_array();
  w.key("footnotes").begin_array();
  for (std::string_view n : notes) w.string(n);
  w.end_array();
  w.end_object();
}

void add_report_routes(stet::router& routes, const stet::route_options& options) {
  routes.get("/report.json", options, [](stet::request&) { return stet::response::json(write_report); });
}

}  // namespace stet_server
