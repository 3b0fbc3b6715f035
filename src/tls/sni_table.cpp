#include "tls/sni_table.hpp"

#include <algorithm>
#include <array>

namespace stet::detail {
namespace {

constexpr std::size_t max_name_bytes = 253;  // RFC 1035: a DNS name's text

char lower(char c) noexcept { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

std::string lowered(std::string_view name) {
  std::string out(name);
  std::transform(out.begin(), out.end(), out.begin(), lower);
  if (!out.empty() && out.back() == '.') out.pop_back();  // "example.com." is "example.com"
  return out;
}

bool by_name(const std::pair<std::string, std::size_t>& a, const std::pair<std::string, std::size_t>& b) {
  return a.first < b.first;
}

}  // namespace

void sni_table::add(std::string_view name, std::size_t index) {
  std::string key = lowered(name);
  if (key.empty()) return;
  entries& table = key.starts_with("*.") ? wildcard_ : exact_;
  if (&table == &wildcard_) key.erase(0, 2);
  const bool taken = std::any_of(table.begin(), table.end(), [&](const auto& e) { return e.first == key; });
  if (!taken) table.emplace_back(std::move(key), index);
}

void sni_table::freeze() {
  std::stable_sort(exact_.begin(), exact_.end(), by_name);
  std::stable_sort(wildcard_.begin(), wildcard_.end(), by_name);
}

std::optional<std::size_t> sni_table::lookup(const entries& table, std::string_view key) noexcept {
  const auto it = std::lower_bound(table.begin(), table.end(), key,
                                   [](const auto& e, std::string_view k) { return std::string_view(e.first) < k; });
  if (it == table.end() || it->first != key) return std::nullopt;
  return it->second;
}

std::optional<std::size_t> sni_table::find(std::string_view host) const noexcept {
  if (!host.empty() && host.back() == '.') host.remove_suffix(1);
  if (host.empty() || host.size() > max_name_bytes) return std::nullopt;
  std::array<char, max_name_bytes> buffer{};
  std::transform(host.begin(), host.end(), buffer.begin(), lower);
  const std::string_view name(buffer.data(), host.size());
  if (const std::optional<std::size_t> exact = lookup(exact_, name)) return exact;
  const std::size_t dot = name.find('.');
  if (dot == std::string_view::npos || dot == 0) return std::nullopt;
  return lookup(wildcard_, name.substr(dot + 1));
}

}  // namespace stet::detail
