#include "pubsub/stream_id.hpp"

#include <charconv>

namespace stet::detail {

namespace {

std::optional<std::uint64_t> whole_number(std::string_view text) noexcept {
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  return value;
}

}  // namespace

std::optional<stream_id> parse_stream_id(std::string_view text) noexcept {
  const std::size_t dash = text.find('-');
  const auto ms = whole_number(text.substr(0, dash));
  if (!ms) return std::nullopt;
  if (dash == std::string_view::npos) return stream_id{*ms, 0};
  const auto seq = whole_number(text.substr(dash + 1));
  if (!seq) return std::nullopt;
  return stream_id{*ms, *seq};
}

}  // namespace stet::detail
