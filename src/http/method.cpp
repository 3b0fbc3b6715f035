#include <stet/method.hpp>

#include <array>

namespace stet {
namespace {

constexpr std::array<std::string_view, method_count> method_tokens = {"GET",   "HEAD",    "POST",  "PUT",     "DELETE",
                                                                      "PATCH", "OPTIONS", "TRACE", "CONNECT", "OTHER"};

}  // namespace

std::string_view to_string(method m) noexcept {
  const auto index = static_cast<std::size_t>(m);
  return index < method_tokens.size() ? method_tokens[index] : "OTHER";
}

std::optional<method> parse_method(std::string_view token) noexcept {
  for (std::size_t i = 0; i + 1 < method_tokens.size(); ++i) {
    if (method_tokens[i] == token) return static_cast<method>(i);
  }
  return std::nullopt;
}

}  // namespace stet
