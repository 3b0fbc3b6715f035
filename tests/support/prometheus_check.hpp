#pragma once
// A small checker for the Prometheus text exposition format (0.0.4): enough to
// catch malformed lines, undeclared families and broken histograms.

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace stet::test {

struct prometheus_parse {
  std::vector<std::string> errors;           // empty when the text is valid
  std::map<std::string, double> samples;     // "name{labels}" -> value
  std::map<std::string, std::string> types;  // family -> type
  double value(const std::string& key, double fallback = -1) const {
    const auto it = samples.find(key);
    return it == samples.end() ? fallback : it->second;
  }
};

prometheus_parse check_prometheus_text(std::string_view text);

}  // namespace stet::test
