#include "metrics/exposition.hpp"

#include <fmt/format.h>

#include <iterator>

namespace stet::detail {

void append_family(std::string& out, std::string_view name, std::string_view help, std::string_view type) {
  fmt::format_to(std::back_inserter(out), "# HELP {} {}\n# TYPE {} {}\n", name, help, name, type);
}

void append_histogram(std::string& out, std::string_view name, std::string_view labels,
                      const latency_histogram::snapshot& s) {
  auto it = std::back_inserter(out);
  const std::string_view comma = labels.empty() ? "" : ",";
  std::uint64_t cumulative = 0;
  for (std::size_t b = 0; b < latency_histogram::bounds_us.size(); ++b) {
    cumulative += s.counts[b];
    fmt::format_to(it, "{}_bucket{{{}{}le=\"{}\"}} {}\n", name, labels, comma, latency_histogram::bounds_us[b] / 1e6,
                   cumulative);
  }
  fmt::format_to(it, "{}_bucket{{{}{}le=\"+Inf\"}} {}\n", name, labels, comma, s.count);
  if (labels.empty()) {
    fmt::format_to(it, "{}_sum {}\n{}_count {}\n", name, s.sum_seconds, name, s.count);
  } else {
    fmt::format_to(it, "{}_sum{{{}}} {}\n{}_count{{{}}} {}\n", name, labels, s.sum_seconds, name, labels, s.count);
  }
}

void append_label_value(std::string& out, std::string_view text) {
  for (const char c : text) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
}

}  // namespace stet::detail
