#include "cli.hpp"

#include <stet/config.hpp>
#include <stet/cors.hpp>

#include <fmt/core.h>
#include <charconv>

namespace stet_server {
namespace {

template <typename Number>
std::optional<Number> parse_number(std::string_view text, Number low, Number high) {
  Number value{};
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < low || value > high) return std::nullopt;
  return value;
}

parse_outcome error(std::string text) { return {std::nullopt, fmt::format("stet-server: {}\n{}", text, usage()), 2}; }

}  // namespace

std::string usage() {
  return "usage: stet-server [--host 127.0.0.1] [--port 8080] [--threads N] [--static DIR]\n"
         "                   [--static-prefix /static] [--static-revalidate-ms 0] [--secret S]\n"
         "                   [--no-access-log] [--access-log FILE] [--cors-origin ORIGIN]...\n"
         "                   [--help] [--version]\n";
}

parse_outcome parse_command_line(const std::vector<std::string_view>& args) {
  options o;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string_view flag = args[i];
    if (flag == "--help" || flag == "-h") return {std::nullopt, usage(), 0};
    if (flag == "--version") return {std::nullopt, fmt::format("stet-server (stet) {}\n", stet::version_string), 0};
    if (flag == "--no-access-log") {
      o.access_log = false;
      continue;
    }
    const bool takes_value = flag == "--host" || flag == "--port" || flag == "--threads" || flag == "--static" ||
                             flag == "--static-prefix" || flag == "--static-revalidate-ms" || flag == "--secret" ||
                             flag == "--access-log" || flag == "--cors-origin";
    if (!takes_value) return error(fmt::format("unknown option '{}'", flag));
    if (i + 1 >= args.size()) return error(fmt::format("option '{}' needs a value", flag));
    const std::string_view value = args[++i];
    if (flag == "--host") {
      if (value.empty()) return error("--host needs an address");
      o.host = value;
    } else if (flag == "--port") {
      const auto port = parse_number<unsigned>(value, 0, 65535);
      if (!port) return error(fmt::format("--port: '{}' is not a port number (0-65535)", value));
      o.port = static_cast<std::uint16_t>(*port);
    } else if (flag == "--threads") {
      const auto threads = parse_number<unsigned>(value, 1, 1024);
      if (!threads) return error(fmt::format("--threads: '{}' is not a thread count (1-1024)", value));
      o.threads = *threads;
    } else if (flag == "--static") {
      o.static_dir = value;
    } else if (flag == "--static-prefix") {
      if (value.empty() || value.front() != '/') return error("--static-prefix must start with '/'");
      o.static_prefix = value;
    } else if (flag == "--static-revalidate-ms") {
      const auto ms = parse_number<unsigned>(value, 0, 3'600'000);
      if (!ms) return error(fmt::format("--static-revalidate-ms: '{}' is not 0-3600000", value));
      o.static_revalidate_ms = *ms;
    } else if (flag == "--secret") {
      if (value.empty()) return error("--secret must not be empty");
      o.secret = value;
    } else if (flag == "--cors-origin") {
      if (const std::string_view why = stet::cors_origin_error(value); !why.empty()) {
        return error(fmt::format("--cors-origin '{}': {}", value, why));
      }
      o.cors_origins.emplace_back(value);
    } else {
      o.access_log = true;
      o.access_log_file = value;
    }
  }
  return {o, {}, 0};
}

}  // namespace stet_server
