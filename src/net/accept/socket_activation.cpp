#include "net/accept/socket_activation.hpp"

#include <unistd.h>

#include <charconv>
#include <cstdlib>

namespace stet::detail {
namespace {

template <class Number>
bool parse_whole(std::string_view text, Number& out) noexcept {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return !text.empty() && ec == std::errc() && end == text.data() + text.size();
}

std::string_view env(const char* name) noexcept {
  const char* value = std::getenv(name);  // NOLINT(concurrency-mt-unsafe): read once at start, never written
  return value != nullptr ? std::string_view(value) : std::string_view();
}

}  // namespace

std::vector<inherited_socket> inherited_sockets() {
  long pid = 0;
  int count = 0;
  if (!parse_whole(env("LISTEN_PID"), pid) || pid != static_cast<long>(::getpid())) return {};
  if (!parse_whole(env("LISTEN_FDS"), count) || count <= 0) return {};
  std::vector<inherited_socket> out;
  std::string_view names = env("LISTEN_FDNAMES");
  for (int i = 0; i < count; ++i) {
    const std::size_t colon = names.find(':');
    const std::string_view name = names.substr(0, colon);
    names = colon == std::string_view::npos ? std::string_view() : names.substr(colon + 1);
    out.push_back({listen_fds_start + i, name.empty() ? "unknown" : std::string(name)});
  }
  return out;
}

std::vector<std::string> expand_inherited(std::string_view address, std::string& why) {
  if (address != "systemd" && !address.starts_with("systemd:")) return {std::string(address)};
  const std::string_view wanted = address == "systemd" ? std::string_view() : address.substr(8);
  std::vector<std::string> out;
  for (const inherited_socket& s : inherited_sockets()) {
    if (wanted.empty() || s.name == wanted) out.push_back("fd:" + std::to_string(s.fd));
  }
  if (out.empty()) {
    why = wanted.empty() ? "no sockets were passed by systemd (LISTEN_PID/LISTEN_FDS)"
                         : "systemd passed no socket of that name (LISTEN_FDNAMES)";
  }
  return out;
}

}  // namespace stet::detail
