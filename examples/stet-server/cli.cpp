#include "cli.hpp"

#include "build_commit.hpp"

#include <stet/config.hpp>
#include <stet/cors.hpp>

#include <fmt/core.h>

#include <array>
#include <charconv>
#include <chrono>
#include <cstddef>
#include <functional>
#include <limits>

namespace stet_server {
namespace {

template <typename Number>
std::optional<Number> parse_number(std::string_view text, Number low, Number high) {
  Number value{};
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < low || value > high) return std::nullopt;
  return value;
}

// One line, the reason last on the screen: the usage is for --help.
parse_outcome error(std::string text) {
  return {std::nullopt, fmt::format("stet-server: {} (stet-server --help lists the options)\n", text), 2};
}

// A limit or timeout of stet::server_options, set from a non-negative integer.
struct number_flag {
  std::string_view name;
  std::string_view help;
  std::uint64_t low;
  std::uint64_t high;
  void (*set)(stet::server_options&, std::uint64_t);
  std::uint64_t (*get)(const stet::server_options&);
};

using so = stet::server_options;
constexpr std::uint64_t max_bytes = std::uint64_t{1} << 40;
constexpr std::uint64_t max_ms = 24ull * 3600 * 1000;

template <auto member>
void set_size(stet::server_options& o, std::uint64_t v) {
  o.*member = static_cast<std::size_t>(v);
}
template <auto member>
std::uint64_t get_size(const stet::server_options& o) {
  return o.*member;
}
template <auto member>
void set_ms(stet::server_options& o, std::uint64_t v) {
  o.*member = std::chrono::milliseconds(v);
}
template <auto member>
std::uint64_t get_ms(const stet::server_options& o) {
  return static_cast<std::uint64_t>((o.*member).count());
}
// One row per limit: where it goes, the flag, what it limits, its range.
template <auto member>
constexpr number_flag size_flag(std::string_view name, std::string_view help, std::uint64_t low, std::uint64_t high) {
  return {name, help, low, high, set_size<member>, get_size<member>};
}
template <auto member>
constexpr number_flag ms_flag(std::string_view name, std::string_view help, std::uint64_t low, std::uint64_t high) {
  return {name, help, low, high, set_ms<member>, get_ms<member>};
}

constexpr std::array number_flags = {
    size_flag<&so::max_connections>("--max-connections", "connections open at once", 1, 10'000'000),
    size_flag<&so::max_header_bytes>("--max-header-bytes", "request line + headers (431)", 256, max_bytes),
    size_flag<&so::max_target_bytes>("--max-target-bytes", "request-target (414)", 16, max_bytes),
    size_flag<&so::max_header_count>("--max-header-count", "header fields (431)", 1, 100'000),
    size_flag<&so::max_body_bytes>("--max-body-bytes", "request body (413)", 0, max_bytes),
    size_flag<&so::max_requests_per_connection>("--max-requests-per-connection", "then close; 0: no limit", 0,
                                                max_bytes),
    size_flag<&so::max_pipeline_output_bytes>("--max-pipeline-output-bytes", "queued output before parsing pauses", 1,
                                              max_bytes),
    size_flag<&so::max_connections_per_address>("--max-connections-per-address",
                                                "connections from one client address; 0: no limit", 0, 10'000'000),
    ms_flag<&so::header_timeout>("--header-timeout-ms", "first byte -> complete head (408)", 1, max_ms),
    ms_flag<&so::first_byte_timeout>("--first-byte-timeout-ms", "a new connection that sends nothing: closed", 1,
                                     max_ms),
    ms_flag<&so::eviction_grace>("--eviction-grace-ms", "at --max-connections: only older ones make room", 0, max_ms),
    ms_flag<&so::idle_timeout>("--idle-timeout-ms", "keep-alive wait for the next request", 1, max_ms),
    ms_flag<&so::body_timeout>("--body-timeout-ms", "longest pause between body reads (408)", 1, max_ms),
    ms_flag<&so::write_timeout>("--write-timeout-ms", "longest wait for a write to progress", 1, max_ms),
    ms_flag<&so::linger_timeout>("--linger-timeout-ms", "reading leftovers before closing", 0, max_ms),
    ms_flag<&so::drain_timeout>("--drain-timeout-ms", "graceful stop: in-flight requests get this long", 0, max_ms),
    ms_flag<&so::drain_delay>("--drain-delay-ms", "graceful stop: not ready, still serving, this long first", 0,
                              max_ms),
    ms_flag<&so::handler_timeout>("--handler-timeout-ms", "an asynchronous handler's longest wait (503)", 1, max_ms),
    number_flag{"--offload-threads", "threads of the blocking pool behind /slow (0: refuse all)", 0, 1024,
                [](so& o, std::uint64_t v) { o.offload_threads = static_cast<unsigned>(v); },
                [](const so& o) { return std::uint64_t{o.offload_threads}; }},
    size_flag<&so::offload_queue>("--offload-queue", "offloaded calls that may wait; then 503", 0, 10'000'000),
    size_flag<&so::websocket_mailbox_messages>(
        "--websocket-mailbox-messages", "cross-worker publishes waiting per worker; then dropped", 1, 100'000'000),
    size_flag<&so::websocket_mailbox_bytes>("--websocket-mailbox-bytes", "their bytes per worker; then dropped", 1,
                                            max_bytes),
    number_flag{"--backlog", "listen(2) backlog", 1, 1'000'000,
                [](so& o, std::uint64_t v) { o.backlog = static_cast<int>(v); },
                [](const so& o) { return static_cast<std::uint64_t>(o.backlog); }},
};

const number_flag* find_number_flag(std::string_view flag) {
  for (const number_flag& f : number_flags) {
    if (f.name == flag) return &f;
  }
  return nullptr;
}

bool is_tls_flag(std::string_view flag) {
  return flag == "--tls-cert" || flag == "--tls-key" || flag == "--tls-port" || flag == "--tls-ticket-key";
}

// The --tls-* flags; the error in words, empty when `value` was taken.
std::string set_tls_flag(options& o, std::string_view flag, std::string_view value) {
  if (flag == "--tls-port") {
    const auto port = parse_number<unsigned>(value, 0, 65535);
    if (!port) return fmt::format("--tls-port: '{}' is not a port number (0-65535)", value);
    o.tls_port = static_cast<std::uint16_t>(*port);
    return {};
  }
  std::string* file = flag == "--tls-cert" ? &o.tls_cert : flag == "--tls-key" ? &o.tls_key : &o.tls_ticket_key;
  if (value.empty()) return fmt::format("{} needs a file", flag);
  *file = value;
  return {};
}

}  // namespace

std::string usage() {
  std::string text =
      "usage: stet-server [--host 127.0.0.1] [--port 8080] [--threads N] [--reuse-port] [--static DIR]\n"
      "                   [--static-prefix /static] [--static-revalidate-ms 0] [--no-static-watch]\n"
      "                   [--secret S]\n"
      "                   [--no-access-log] [--access-log FILE] [--cors-origin ORIGIN]...\n"
      "                   [--tls-cert FILE --tls-key FILE [--tls-port 8443] [--tls-ticket-key FILE]]\n"
      "                   [--upload-dir DIR] [--max-upload-bytes N] [--no-upload-digest]\n"
      "                   [--websocket-budget-bytes N]\n"
      "                   [--no-compression] [--cache-ms N] [--users-delay-ms N]\n"
      "                   [--offload-threads N] [--offload-queue N]\n"
      "                   [--listen ADDR]... [--trusted-proxy CIDR]... [--proxy-protocol]\n"
      "                   [--pubsub redis://HOST:PORT]\n"
      "                   [--help] [--version]\n"
      "  --static DIR          the site served under --static-prefix (default: the example site);\n"
      "                        --static-revalidate-ms N: cached files are re-checked with stat(2) at\n"
      "                        most every N ms (0: on every hit that no inotify event vouches for);\n"
      "                        --no-static-watch: no inotify watches, so a stat per hit\n"
      "  --secret S            signs the actor cookie of /-/login (default: random per start, so\n"
      "                        cookies do not survive a restart; give the same S to every instance)\n"
      "  --tls-cert FILE --tls-key FILE  also serve HTTPS on --tls-port (default 8443), same routes;\n"
      "                        --tls-ticket-key FILE shares session-ticket keys between instances;\n"
      "                        SIGHUP re-reads all three (all or nothing)\n"
      "  --upload-dir DIR      where POST /upload and PUT /upload/{name} store files (default: a\n"
      "                        private directory removed at exit); must be a writable directory;\n"
      "                        --max-upload-bytes N (default 8 GiB), --no-upload-digest: no SHA-256\n"
      "  --no-compression      no gzip/br/zstd for answers and static files (on by default)\n"
      "  --cache-ms N          answer GET /report.json and GET /users/{id} from the response cache\n"
      "                        for N ms, then stale for N ms more while one refresh runs (0: off);\n"
      "                        --users-delay-ms N: GET /users/{id} answers N ms late (a slow backend)\n"
      "  --no-access-log, --access-log FILE  off, or to FILE instead of standard output\n"
      "  --listen ADDR         HOST:PORT, [V6]:PORT, unix:PATH, fd:N or systemd (repeatable;\n"
      "                        when given, only these are bound, not --host/--port)\n"
      "  --trusted-proxy CIDR  believe Forwarded / X-Forwarded-* from these peers (repeatable;\n"
      "                        an address, a CIDR, or unix)\n"
      "  --proxy-protocol      every connection starts with a PROXY v1/v2 header (all listeners)\n"
      "  --cors-origin ORIGIN  pages on ORIGIN may read /json, /echo, /report.json, /-/actor.json\n"
      "                        and open /ws/echo, /ws/chat/{room}, POST /chat/{room} (repeatable);\n"
      "                        other origins' upgrades and chat posts get 403, the server's own\n"
      "                        pages are always served\n"
      "  --pubsub redis://HOST:PORT  chat rooms span every instance connected to that Redis\n"
      "                        (default: this process only); Redis may come later, the\n"
      "                        server starts and keeps reconnecting\n"
      "  --websocket-budget-bytes N  messages being assembled on all of a WebSocket route's\n"
      "                        connections together (default 256 MiB; 0: none); past it 1013\n"
      "chat rooms: /ws/chat/{room} (WebSocket), GET /events/chat/{room} (server-sent events,\n"
      "         resumable with Last-Event-ID), POST /chat/{room} (text body, 64 KiB: 202) share\n"
      "         one topic per room; --events-lifetime-ms N ends each event stream after N ms\n"
      "         (with a retry hint: clients reconnect and resume; default 0: never)\n"
      "signals: TERM/INT staged stop (drain delay, drain); HUP reloads the TLS files and reopens\n"
      "         the access log; USR1 reopens the access log\n"
      "limits and timeouts (defaults are the library's):\n";
  const stet::server_options defaults;
  for (const number_flag& f : number_flags) {
    text += fmt::format("  {:<32} {} (default {})\n", fmt::format("{} N", f.name), f.help, f.get(defaults));
  }
  return text;
}

parse_outcome parse_command_line(const std::vector<std::string_view>& args) {
  options o;
  bool proxy_protocol = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string_view flag = args[i];
    if (flag == "--help" || flag == "-h") return {std::nullopt, usage(), 0};
    if (flag == "--version") {
      return {std::nullopt, fmt::format("stet-server {} (commit {})\n", stet::version_string, build_commit()), 0};
    }
    if (flag == "--no-access-log") {
      o.access_log = false;
      continue;
    }
    if (flag == "--no-upload-digest") {
      o.upload_digest = false;
      continue;
    }
    if (flag == "--no-static-watch") {
      o.static_watch = false;
      continue;
    }
    if (flag == "--no-compression") {
      o.compression = false;
      continue;
    }
    if (flag == "--reuse-port") {
      o.server.reuse_port = true;
      continue;
    }
    if (flag == "--proxy-protocol") {
      proxy_protocol = true;
      continue;
    }
    if (flag == "--pubsub") {
      // The rest of the URL is read by start(), whose error names the reason.
      if (i + 1 >= args.size()) return error("option '--pubsub' needs a value");
      const std::string_view url = args[++i];
      if (!url.starts_with("redis://")) return error(fmt::format("--pubsub: '{}' is not redis://HOST:PORT", url));
      o.server.pubsub = url;
      continue;
    }
    const number_flag* limit = find_number_flag(flag);
    const bool takes_value =
        limit != nullptr || flag == "--host" || flag == "--port" || flag == "--threads" || flag == "--static" ||
        flag == "--static-prefix" || flag == "--static-revalidate-ms" || flag == "--secret" || flag == "--access-log" ||
        flag == "--cors-origin" || is_tls_flag(flag) || flag == "--upload-dir" || flag == "--max-upload-bytes" ||
        flag == "--websocket-budget-bytes" || flag == "--events-lifetime-ms" || flag == "--listen" ||
        flag == "--trusted-proxy" || flag == "--cache-ms" || flag == "--users-delay-ms";
    if (!takes_value) return error(fmt::format("unknown option '{}'", flag));
    if (i + 1 >= args.size()) return error(fmt::format("option '{}' needs a value", flag));
    const std::string_view value = args[++i];
    if (limit != nullptr) {
      const auto n = parse_number<std::uint64_t>(value, limit->low, limit->high);
      if (!n) return error(fmt::format("{}: '{}' is not a number from {} to {}", flag, value, limit->low, limit->high));
      limit->set(o.server, *n);
    } else if (flag == "--host") {
      if (value.empty()) return error("--host needs an address");
      o.host = value;
    } else if (flag == "--port") {
      const auto port = parse_number<unsigned>(value, 0, 65535);
      if (!port) return error(fmt::format("--port: '{}' is not a port number (0-65535)", value));
      o.port = static_cast<std::uint16_t>(*port);
    } else if (flag == "--threads") {
      const auto threads = parse_number<unsigned>(value, 1, 1024);
      if (!threads) return error(fmt::format("--threads: '{}' is not a thread count (1-1024)", value));
      o.server.threads = *threads;
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
    } else if (is_tls_flag(flag)) {
      if (std::string why = set_tls_flag(o, flag, value); !why.empty()) return error(why);
    } else if (flag == "--upload-dir") {
      if (value.empty()) return error("--upload-dir needs a directory");
      o.upload_dir = value;
    } else if (flag == "--max-upload-bytes") {
      const auto n = parse_number<std::uint64_t>(value, 0, std::uint64_t{1} << 50);
      if (!n)
        return error(
            fmt::format("--max-upload-bytes: '{}' is not a number from 0 to {}", value, std::uint64_t{1} << 50));
      o.max_upload_bytes = *n;
    } else if (flag == "--websocket-budget-bytes") {
      const auto n = parse_number<std::uint64_t>(value, 0, std::uint64_t{1} << 40);
      if (!n) {
        return error(
            fmt::format("--websocket-budget-bytes: '{}' is not a number from 0 to {}", value, std::uint64_t{1} << 40));
      }
      o.websocket_budget_bytes = *n;
    } else if (flag == "--cache-ms") {
      const auto ms = parse_number<unsigned>(value, 0, 86'400'000);
      if (!ms) return error(fmt::format("--cache-ms: '{}' is not 0-86400000", value));
      o.cache_ms = *ms;
    } else if (flag == "--users-delay-ms") {
      const auto ms = parse_number<unsigned>(value, 0, 10'000);
      if (!ms) return error(fmt::format("--users-delay-ms: '{}' is not 0-10000", value));
      o.users_delay_ms = *ms;
    } else if (flag == "--events-lifetime-ms") {
      const auto n = parse_number<std::uint64_t>(value, 0, 86'400'000);
      if (!n) return error(fmt::format("--events-lifetime-ms: '{}' is not a number from 0 to 86400000", value));
      o.events_lifetime_ms = *n;
    } else if (flag == "--listen") {
      if (value.empty()) return error("--listen needs an address (HOST:PORT, [V6]:PORT, unix:PATH, fd:N, systemd)");
      o.server.listeners.push_back({std::string(value)});
    } else if (flag == "--trusted-proxy") {
      if (value.empty()) return error("--trusted-proxy needs an address, a CIDR or unix");
      o.server.trusted_proxies.emplace_back(value);
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
  o.proxy_protocol = proxy_protocol;
  // Without --listen the one plain listener is --host:--port.
  if (o.server.listeners.empty()) o.server.listeners.push_back({default_listen_address(o.host, o.port)});
  if (proxy_protocol) {
    for (stet::listen_options& l : o.server.listeners) l.proxy_protocol = true;  // --tls-port's: main()
  }
  if (o.tls_cert.empty() != o.tls_key.empty()) return error("--tls-cert and --tls-key go together");
  if (!o.tls_ticket_key.empty() && o.tls_cert.empty()) return error("--tls-ticket-key needs --tls-cert and --tls-key");
  return {o, {}, 0};
}

std::string listen_description(const stet::listen_options& l, std::uint16_t bound_port) {
  const std::string_view a = l.address;
  std::string text;
  if (a.starts_with("unix:")) {
    text = l.address;  // a path: no port, no scheme
  } else if (a.starts_with("fd:") || a.starts_with("systemd")) {
    text = bound_port == 0 ? l.address : fmt::format("{} (port {})", l.address, bound_port);  // 0: a unix socket
  } else {
    const std::size_t colon = a.rfind(':');  // HOST:PORT or [V6]:PORT: the port asked for may be 0
    text = fmt::format("{}://{}:{}/", l.tls ? "https" : "http", a.substr(0, colon), bound_port);
  }
  if (l.proxy_protocol) text += ", PROXY protocol";
  return text;
}

std::string default_listen_address(std::string_view host, std::uint16_t port) {
  return host.find(':') != std::string_view::npos ? fmt::format("[{}]:{}", host, port)
                                                  : fmt::format("{}:{}", host, port);
}

}  // namespace stet_server
