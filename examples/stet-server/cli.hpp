#pragma once
// Command line of stet-server (the contract in DESIGN.md).

#include <stet/server_options.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace stet_server {

struct options {
  /// Listeners, threads and every limit and timeout (--max-*, --*-timeout-ms).
  /// Without --listen, one listener on --host:--port.
  stet::server_options server;
  std::string host = "127.0.0.1";  // --host
  std::uint16_t port = 8080;       // --port
  std::string static_dir;
  std::string static_prefix = "/static";
  unsigned static_revalidate_ms = 0;  // 0: every cache hit is checked with stat(2), unless watched
  bool static_watch = true;           // --no-static-watch: no inotify, a stat per hit
  std::string secret;
  bool access_log = true;
  bool compression = true;                // --no-compression: off (responses and static files)
  std::string access_log_file;            // empty: standard output
  std::vector<std::string> cors_origins;  // --cors-origin, repeatable; empty: no CORS
  std::string tls_cert;                   // --tls-cert: with --tls-key, an HTTPS listener beside the plain one
  std::string tls_key;
  std::uint16_t tls_port = 8443;  // --tls-port
  std::string tls_ticket_key;     // --tls-ticket-key: shared session-ticket keys (80-byte keys)
  std::string upload_dir;         // empty: a private directory made at start
  std::uint64_t max_upload_bytes = std::uint64_t{8} << 30;
  bool upload_digest = true;    // --no-upload-digest: uploads are stored without a SHA-256
  bool proxy_protocol = false;  // --proxy-protocol: on every listener, --tls-port's too
  // --websocket-budget-bytes: WebSocket messages being assembled, all
  // connections of a route together (websocket_options::max_total_message_bytes)
  std::uint64_t websocket_budget_bytes = std::uint64_t{256} << 20;
  // --cache-ms: /report.json and /users/{id} from the response cache for this
  // long, and as long again stale while one refresh runs (0: off)
  unsigned cache_ms = 0;
  // --users-delay-ms: GET /users/{id} answers this late, a slow backend behind
  // it (what the single-flight burst of bench/e2e/response_cache.sh needs)
  unsigned users_delay_ms = 0;
  // --events-lifetime-ms: GET /events/chat/{room} streams end (with a retry
  // hint, and clients resume) after this long; 0: never
  std::uint64_t events_lifetime_ms = 0;
};

struct parse_outcome {
  std::optional<options> parsed;  // nullopt: print `message` and exit with `exit_code`
  std::string message;
  int exit_code = 0;
};

parse_outcome parse_command_line(const std::vector<std::string_view>& args);
std::string usage();
/// What a "listening on" line says of listener `l` bound to `bound_port`:
/// `http://HOST:PORT/` or `https://...` for TCP, `unix:PATH`, `fd:N (port P)`.
std::string listen_description(const stet::listen_options& l, std::uint16_t bound_port);
/// `host:port` (`[host]:port` for IPv6): the listener when no --listen is given.
std::string default_listen_address(std::string_view host, std::uint16_t port);

}  // namespace stet_server
