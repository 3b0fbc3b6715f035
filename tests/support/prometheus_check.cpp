#include "support/prometheus_check.hpp"

#include <cctype>
#include <charconv>
#include <cstdlib>
#include <regex>

namespace stet::test {
namespace {

bool valid_name(std::string_view n) {
  if (n.empty() || std::isdigit(static_cast<unsigned char>(n[0]))) return false;
  for (char c : n) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != ':') return false;
  }
  return true;
}

// The family a sample belongs to: histograms add _bucket, _sum and _count.
std::string family_of(const std::string& name, const std::map<std::string, std::string>& types) {
  if (types.count(name)) return name;
  for (const char* suffix : {"_bucket", "_sum", "_count"}) {
    const std::string s(suffix);
    if (name.size() > s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0) {
      const std::string base = name.substr(0, name.size() - s.size());
      if (types.count(base)) return base;
    }
  }
  return {};
}

}  // namespace

prometheus_parse check_prometheus_text(std::string_view text) {
  prometheus_parse out;
  static const std::regex label_list(
      R"re(([a-zA-Z_][a-zA-Z0-9_]*="([^"\\]|\\.)*")(,[a-zA-Z_][a-zA-Z0-9_]*="([^"\\]|\\.)*")*)re");
  std::map<std::string, double> last_bucket;  // per histogram series: buckets must not decrease
  std::size_t line_no = 0;
  while (!text.empty()) {
    const std::size_t eol = text.find('\n');
    if (eol == std::string_view::npos) {
      out.errors.push_back("text does not end with a newline");
      break;
    }
    const std::string line(text.substr(0, eol));
    text.remove_prefix(eol + 1);
    ++line_no;
    const std::string where = "line " + std::to_string(line_no) + ": " + line;
    if (line.rfind("# HELP ", 0) == 0) continue;
    if (line.rfind("# TYPE ", 0) == 0) {
      const std::string rest = line.substr(7);
      const std::size_t space = rest.find(' ');
      const std::string name = rest.substr(0, space);
      const std::string type = space == std::string::npos ? "" : rest.substr(space + 1);
      if (!valid_name(name)) out.errors.push_back("bad family name, " + where);
      if (type != "counter" && type != "gauge" && type != "histogram" && type != "summary" && type != "untyped") {
        out.errors.push_back("bad type, " + where);
      }
      if (out.types.count(name)) out.errors.push_back("family declared twice, " + where);
      out.types[name] = type;
      continue;
    }
    if (line.empty() || line[0] == '#') continue;
    const std::size_t brace = line.find('{');
    const std::size_t space = line.rfind(' ');
    if (space == std::string::npos) {
      out.errors.push_back("no value, " + where);
      continue;
    }
    const std::string name = line.substr(0, std::min(brace, space));
    std::string labels;
    if (brace != std::string::npos && brace < space) {
      const std::size_t close = line.rfind('}', space);  // label values may hold braces (route patterns)
      labels = line.substr(brace + 1, close - brace - 1);
      if (close == std::string::npos || !std::regex_match(labels, label_list))
        out.errors.push_back("bad labels, " + where);
    }
    if (!valid_name(name)) out.errors.push_back("bad sample name, " + where);
    const std::string value_text = line.substr(space + 1);
    char* end = nullptr;
    const double value = std::strtod(value_text.c_str(), &end);
    if (value_text.empty() || *end != '\0') out.errors.push_back("bad value, " + where);
    const std::string family = family_of(name, out.types);
    if (family.empty()) out.errors.push_back("sample before its # TYPE, " + where);
    if (out.types[family] == "histogram" && name == family + "_bucket") {
      const std::size_t le = labels.find("le=\"");
      std::string series = labels.substr(0, le);
      if (last_bucket.count(series) && value < last_bucket[series]) out.errors.push_back("bucket decreases, " + where);
      last_bucket[series] = value;
    }
    out.samples[name + (labels.empty() ? "" : "{" + labels + "}")] = value;
  }
  return out;
}

}  // namespace stet::test
