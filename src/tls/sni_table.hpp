#pragma once
// Which certificate answers a server name (SNI): exact names and one-label
// wildcards ("*.example.com" matches "a.example.com", not "example.com" nor
// "a.b.example.com"), compared case-insensitively. Built once per context; a
// lookup is a binary search of a sorted vector, done once per handshake.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace stet::detail {

class sni_table {
 public:
  /// `name` (exact or "*.parent") is served by certificate `index`; the first
  /// certificate to claim a name keeps it.
  void add(std::string_view name, std::size_t index);
  /// Sorts the table; call once, after the last add().
  void freeze();
  /// The certificate for `host`: an exact name first, then a wildcard over its parent.
  std::optional<std::size_t> find(std::string_view host) const noexcept;
  bool empty() const noexcept { return exact_.empty() && wildcard_.empty(); }

 private:
  using entries = std::vector<std::pair<std::string, std::size_t>>;
  static std::optional<std::size_t> lookup(const entries& table, std::string_view key) noexcept;
  entries exact_;
  entries wildcard_;  // keyed by the parent: "example.com" for "*.example.com"
};

}  // namespace stet::detail
