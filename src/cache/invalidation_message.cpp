#include "cache/invalidation_message.hpp"

#include <fmt/format.h>

#include <charconv>

namespace stet::detail {
namespace {

constexpr char scope_letter(invalidation_log::scope s) noexcept {
  switch (s) {
    case invalidation_log::scope::all: return 'a';
    case invalidation_log::scope::route: return 'r';
    case invalidation_log::scope::tag: return 't';
  }
  return 'a';
}

std::optional<invalidation_log::scope> scope_of(char c) noexcept {
  switch (c) {
    case 'a': return invalidation_log::scope::all;
    case 'r': return invalidation_log::scope::route;
    case 't': return invalidation_log::scope::tag;
    default: return std::nullopt;
  }
}

// Reads a number in `base` up to the next space and moves past the space.
template <class T>
std::optional<T> take_number(std::string_view& in, int base) noexcept {
  T n{};
  const auto [end, ec] = std::from_chars(in.data(), in.data() + in.size(), n, base);
  const auto used = static_cast<std::size_t>(end - in.data());
  if (ec != std::errc() || used == 0 || used >= in.size() || in[used] != ' ') return std::nullopt;
  in.remove_prefix(used + 1);
  return n;
}

}  // namespace

std::string encode(const invalidation_message& m) {
  return fmt::format("{:016x} {} {} {}{}", m.origin, scope_letter(m.what), m.cache.size(), m.cache, m.value);
}

std::optional<invalidation_message> decode(std::string_view bytes) noexcept {
  invalidation_message m;
  const std::optional<std::uint64_t> origin = take_number<std::uint64_t>(bytes, 16);
  if (!origin || bytes.size() < 2 || bytes[1] != ' ') return std::nullopt;
  const std::optional<invalidation_log::scope> what = scope_of(bytes[0]);
  bytes.remove_prefix(2);
  const std::optional<std::size_t> name_size = take_number<std::size_t>(bytes, 10);
  if (!what || !name_size || *name_size > bytes.size()) return std::nullopt;
  m.origin = *origin;
  m.what = *what;
  m.cache = bytes.substr(0, *name_size);
  m.value = bytes.substr(*name_size);
  return m;
}

}  // namespace stet::detail
