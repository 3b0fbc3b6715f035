#include "cache/cache_key.hpp"

#include "http/target.hpp"
#include "http/token.hpp"

#include <algorithm>
#include <string>

namespace stet::detail {
namespace {

bool listed(const std::vector<std::string>& names, std::string_view name) noexcept {
  return std::any_of(names.begin(), names.end(), [name](const std::string& n) { return iequals(n, name); });
}

// Parts are separated by NUL, which no path, query or field value carries
// (the parser refuses it); a present value is marked so that an absent
// header and an empty one differ.
void add_part(std::string& key, std::optional<std::string_view> value) {
  key += value ? '\1' : '\2';
  if (value) key += *value;
  key += '\0';
}

}  // namespace

bool may_use_cache(const request& req, const cache_policy& policy) noexcept {
  if (req.method() != stet::method::get && req.method() != stet::method::head) return false;
  for (const header_field& f : req.header_fields()) {
    const bool personal = iequals(f.name, "authorization") || iequals(f.name, "cookie");
    if (personal && !listed(policy.vary, f.name)) return false;
  }
  return true;
}

std::string_view build_cache_key(const request& req, std::uint32_t route, const cache_policy& policy) {
  thread_local std::string key;
  key.clear();
  key.append(reinterpret_cast<const char*>(&route), sizeof route);  // NOLINT: the index's bytes
  key += req.raw_path();
  key += '\0';
  if (!policy.ignore_query) {
    if (policy.query_args.empty()) {
      add_part(key, req.query_string());
    } else {
      for (const std::string& name : policy.query_args) add_part(key, raw_query_arg(req.query_string(), name));
    }
  }
  for (const std::string& name : policy.vary) add_part(key, req.header(name));
  return key;
}

}  // namespace stet::detail
