#pragma once
// One sample's value from Prometheus text: `series` is the name with its
// labels exactly as written, e.g. stet_connections_closed_total{reason="per_address"}.

#include <stet/metrics.hpp>

#include <string>
#include <string_view>

namespace stet::test {

/// The value of `series` in `m`'s text; -1 when it is not there.
inline double metric_value(const stet::metrics& m, std::string_view series) {
  const std::string text = m.text();
  const std::string key = std::string(series) + " ";
  for (std::size_t at = text.find(key); at != std::string::npos; at = text.find(key, at + 1)) {
    if (at == 0 || text[at - 1] == '\n') return std::stod(text.substr(at + key.size()));
  }
  return -1;
}

/// stet_connections_closed_total for `reason`.
inline double closed_for(const stet::metrics& m, std::string_view reason) {
  return metric_value(m, "stet_connections_closed_total{reason=\"" + std::string(reason) + "\"}");
}

}  // namespace stet::test
