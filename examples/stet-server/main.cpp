// stet-server: the bundled example server (its contract is in DESIGN.md).

#include <stet/readiness.hpp>
#include <stet/response_cache.hpp>
#include <stet/signer.hpp>
#include <stet/static_files.hpp>
#include <stet/stet.hpp>

#include "cli.hpp"
#include "event_routes.hpp"
#include "report.hpp"
#include "slow.hpp"
#include "uploads.hpp"
#include "websocket_routes.hpp"

#include <fmt/format.h>
#include <openssl/rand.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <charconv>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

namespace {

// Computed once at start: the versions never change while the process runs.
std::string versions_json() {
  std::string json = "{";
  for (const stet::component_version& v : stet::build_versions()) {
    if (json.size() > 1) json += ',';
    json += fmt::format("\"{}\":\"{}\"", v.name, v.version);
  }
  json += "}";
  return json;
}

// The value of `key` in a query string (no decoding: only digits are expected here).
std::string_view query_value(std::string_view query, std::string_view key) {
  while (!query.empty()) {
    const std::size_t amp = query.find('&');
    const std::string_view pair = query.substr(0, amp);
    if (pair.size() > key.size() && pair.substr(0, key.size()) == key && pair[key.size()] == '=') {
      return pair.substr(key.size() + 1);
    }
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
  }
  return {};
}

// GET /stream?rows=N: N CSV rows, produced ~64 KiB at a time as the client reads.
stet::response csv_stream(stet::request& req) {
  constexpr std::uint64_t max_rows = 10'000'000;
  const std::string_view text = query_value(req.query_string(), "rows");
  std::uint64_t rows = 100;
  if (!text.empty()) {
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), rows);
    if (ec != std::errc() || end != text.data() + text.size() || rows > max_rows) {
      return stet::response::json_text(R"({"error":"rows must be an integer from 0 to 10000000"})",
                                       stet::status::bad_request);
    }
  }
  stet::response r;
  r.set_header("Content-Type", "text/csv; charset=utf-8");
  r.set_stream([rows, next = std::uint64_t{0}](stet::stream_writer& out) mutable {
    if (next == 0) out.write("id,name,score\n");
    while (next < rows && out.wants_more()) {
      fmt::format_to(std::back_inserter(out.buffer()), "{},user-{},{}\n", next, next, (next * 7919) % 1000);
      ++next;
    }
    return next < rows;
  });
  return r;
}

// GET /: a small page whose stylesheet link carries the content hash, so the
// browser may cache it for a year and still never see stale CSS.
stet::response home_page(stet::static_files& files) {
  const std::string css = files.static_url("app.css");
  return stet::response::html(fmt::format(R"(<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>stet</title><link rel="stylesheet" href="{}"></head>
<body>
<h1>stet</h1>
<p>An embeddable C++20 HTTP/1.1 server whose requests never re-derive what does not change.</p>
<ul>
<li><a href="/plaintext">/plaintext</a></li>
<li><a href="/json">/json</a></li>
<li><a href="/-/versions.json">/-/versions.json</a></li>
<li><a href="/-/metrics">/-/metrics</a></li>
<li><a href="/-/status">/-/status</a></li>
<li><a href="/stream?rows=1000">/stream?rows=1000</a></li>
<li><a href="/report.json">/report.json</a></li>
</ul>
<form method="post" action="/upload" enctype="multipart/form-data">
<p><label>Upload files: <input type="file" name="file" multiple></label>
<label>Note: <input type="text" name="note"></label>
<button type="submit">Upload</button></p>
</form>
</body>
</html>
)",
                                          css));
}

// A secret for the actor cookie: --secret, or random per start (cookies then do
// not survive a restart, and instances do not share them).
std::string actor_secret(const std::string& given) {
  if (!given.empty()) return given;
  std::fprintf(stderr,
               "stet-server: no --secret given: using a random one; actor cookies will not survive a restart\n");
  std::array<unsigned char, 32> bytes{};
  RAND_bytes(bytes.data(), static_cast<int>(bytes.size()));
  std::string secret;
  for (unsigned char b : bytes) secret += fmt::format("{:02x}", b);
  return secret;
}

// GET /echo: the query args as JSON; a repeated key becomes an array.
stet::response echo_query(stet::request& req) {
  const stet::form_data& query = req.query();
  return stet::response::json([&query](stet::json::writer& w) {
    w.begin_object();
    const std::span<const stet::form_field> fields = query.all();
    for (std::size_t i = 0; i < fields.size(); ++i) {
      const stet::form_field& field = fields[i];
      const auto seen = [&](const stet::form_field& earlier) { return earlier.name == field.name; };
      if (std::any_of(fields.begin(), fields.begin() + static_cast<std::ptrdiff_t>(i), seen)) continue;
      const auto values = query.get_all(field.name);
      w.key(field.name);
      if (values.size() == 1) {
        w.string(field.value);
      } else {
        w.begin_array();
        for (const stet::form_field& v : values) w.string(v.value);
        w.end_array();
      }
    }
    w.end_object();
  });
}

// --cors-origin: pages on the listed origins may read the `open` routes, and
// the `credentialed` ones with the visitor's cookies. That one never allows
// "*": credentials go to the listed origins only. Without the flag both groups
// have no layer and cost nothing.
struct cors_groups {
  stet::route_group open;
  stet::route_group credentialed;
};

cors_groups make_cors_groups(stet::router& routes, const std::vector<std::string>& origins) {
  cors_groups groups{routes.group(""), routes.group("")};
  if (origins.empty()) return groups;
  stet::cors_options open;
  open.origins = origins;
  open.allow_headers = {"Content-Type"};
  open.max_age = std::chrono::minutes(10);
  stet::cors_options credentialed = open;
  credentialed.credentials = true;
  std::erase(credentialed.origins, "*");
  groups.open.use(stet::cors(open));
  groups.credentialed.use(stet::cors(credentialed));
  return groups;
}

void add_actor_routes(stet::router& routes, stet::route_group& credentialed,
                      std::shared_ptr<const stet::signer> signer) {
  credentialed.get("/-/actor.json", [signer](stet::request& req) {
    const std::optional<std::string_view> actor = req.signed_cookie(*signer, "actor");
    return stet::response::json([&actor](stet::json::writer& w) {
      w.begin_object().key("actor");
      actor ? w.string(*actor) : w.null();
      w.end_object();
    });
  });
  routes.post("/-/login", [signer](stet::request& req) {
    const stet::json_result& body = req.json();
    if (!body) return stet::response::json_error(body.error(), body.detail());
    const stet::json_value* id = body->find("id");
    const std::optional<std::string_view> actor = id != nullptr ? id->as_string() : std::nullopt;
    if (!actor || actor->empty() || actor->size() > 256) {
      return stet::response::json_error(make_error_code(stet::error::bad_request),
                                        R"(the body must be {"id": "<1 to 256 characters>"})");
    }
    stet::response r = stet::response::json(
        [&actor](stet::json::writer& w) { w.begin_object().member("actor", *actor).end_object(); });
    stet::cookie_options cookie;
    cookie.max_age = std::chrono::hours(24 * 7);
    if (const std::error_code ec = r.set_signed_cookie(*signer, "actor", *actor, cookie)) {
      return stet::response::json_error(ec);
    }
    return r;
  });
}

// GET /-/client.json: whom the request came from, as the trusted proxies tell
// it (the peer itself when none is trusted).
stet::response client_json(stet::request& req) {
  return stet::response::json([&req](stet::json::writer& w) {
    w.begin_object()
        .member("client", req.client_address_text())
        .member("scheme", req.scheme())
        .member("host", req.host())
        .end_object();
  });
}

// SIGHUP's TLS half: re-read the certificate and key files. A reload that
// fails keeps the certificates being served.
void reload_tls_certificates(stet::server& server) {
  const stet::config_error reloaded = server.reload_tls();
  std::fprintf(stderr, "stet-server: SIGHUP: %s\n",
               reloaded ? reloaded.message().c_str() : "TLS certificate and key files reloaded");
}

// Signals are taken here, on a thread of their own, while main() waits for the
// server: TERM/INT begin the staged stop, HUP and USR1 reopen the access log
// (logrotate's postrotate), HUP also reloads TLS.
void handle_signals(const sigset_t& set, stet::server& server, const std::atomic<bool>& exiting) {
  for (;;) {
    int received = 0;
    if (sigwait(&set, &received) != 0 || exiting.load()) return;
    if (received == SIGHUP || received == SIGUSR1) {
      if (const stet::config_error failed = server.reopen_access_log()) {
        std::fprintf(stderr, "stet-server: cannot reopen the access log: %s\n", failed.message().c_str());
      }
      if (received == SIGHUP) reload_tls_certificates(server);
      continue;
    }
    std::fprintf(stderr, "stet-server: %s received, draining\n", received == SIGINT ? "SIGINT" : "SIGTERM");
    server.stop();
  }
}

// --cache-ms: the route options of the two cached routes, both through one
// cache; /users/{id} answers carry the tag user:{id}, which an edit of that
// user would invalidate. Default options (no cache) without the flag.
struct cached_routes {
  stet::route_options report;
  stet::route_options users;
};

cached_routes make_cached_routes(unsigned cache_ms, const stet::compression_options& compression,
                                 stet::metrics& metrics) {
  if (cache_ms == 0) return {};
  stet::response_cache_options options;
  options.compression = compression;
  auto cache = std::make_shared<stet::response_cache>(options);
  stet::report_metrics(metrics, cache);
  stet::cache_policy policy;
  policy.ttl = std::chrono::milliseconds(cache_ms);
  policy.stale_while_revalidate = policy.ttl;
  cached_routes out{cache->route("/report.json", policy), {}};
  policy.tags = [](const stet::request& req, const stet::response&, std::vector<std::string>& tags) {
    tags.push_back(fmt::format("user:{}", req.param("id").value_or("")));
  };
  out.users = cache->route("/users/{id}", std::move(policy));
  return out;
}

stet::router make_routes(const stet_server::options& o, const std::string& upload_dir,
                         const std::shared_ptr<stet::metrics>& metrics,
                         const std::shared_ptr<stet::static_files>& files, std::shared_ptr<const stet::signer> signer,
                         const std::shared_ptr<stet::readiness>& ready) {
  stet::router routes;
  stet::compression_options compression = o.server.compression;
  compression.enabled = o.compression;  // as main() sets it for the server
  const cached_routes cached = make_cached_routes(o.cache_ms, compression, *metrics);
  cors_groups cors = make_cors_groups(routes, o.cors_origins);
  add_actor_routes(routes, cors.credentialed, std::move(signer));
  cors.open.get("/echo", echo_query);
  cors.open.post("/echo", [](stet::request& req) {
    const stet::json_result& body = req.json();
    if (!body) return stet::response::json_error(body.error(), body.detail());
    return stet::response::json(*body);
  });
  stet::mount(routes, o.static_prefix, files);
  routes.get("/", [files](stet::request&) { return home_page(*files); });
  routes.get("/favicon.ico", [files](stet::request& req) { return files->respond(req, "favicon.ico"); });
  routes.get("/-/metrics", [metrics](stet::request&) { return metrics->respond(); });
  stet::mount_status(routes, "/-/status", metrics);  // and /-/status.json
  routes.get("/plaintext", [](stet::request&) { return stet::response::text("Hello, World!"); });
  cors.open.get("/json", [](stet::request&) {
    return stet::response::json(
        [](stet::json::writer& w) { w.begin_object().member("message", "Hello, World!").end_object(); });
  });
  routes.get("/healthz", [](stet::request&) { return stet::response::text("ok"); });
  routes.get("/-/ready", [ready](stet::request&) { return ready->respond(); });
  routes.get("/-/client.json", client_json);
  routes.get("/stream", csv_stream);
  stet_server::add_report_routes(routes, cached.report);
  stet_server::add_slow_route(routes);
  stet_server::add_upload_routes(routes, {upload_dir, o.max_upload_bytes, o.upload_digest});
  stet_server::add_websocket_routes(routes, o.cors_origins, o.websocket_budget_bytes);
  stet_server::add_event_routes(routes, o.cors_origins, std::chrono::milliseconds(o.events_lifetime_ms));
  routes.get("/-/versions.json",
             [versions = versions_json()](stet::request&) { return stet::response::json_text(versions); });
  // A non-integer id does not match the route: 404. Written straight into the
  // pooled body buffer: no std::string per request, whatever the id's length.
  // --users-delay-ms: a slow backend, blocking as a synchronous client of one would.
  routes.get("/users/{id:int}", cached.users, [delay = o.users_delay_ms](stet::request&, std::int64_t id) {
    if (delay != 0) std::this_thread::sleep_for(std::chrono::milliseconds(delay));
    return stet::response::json([id](stet::json::writer& w) { w.begin_object().member("id", id).end_object(); });
  });
  return routes;
}

// --tls-cert: the plain listeners (--listen, or --host and --port) and an
// HTTPS one beside them (--tls-port), serving the same routes.
void add_tls_listener(const stet_server::options& o, stet::server_options& options) {
  if (o.tls_cert.empty()) return;
  auto tls = std::make_shared<stet::tls_options>();
  tls->certificates.push_back({o.tls_cert, o.tls_key, {}, {}});
  tls->ticket_key_file = o.tls_ticket_key;
  stet::listen_options secure{stet_server::default_listen_address(o.host, o.tls_port)};
  secure.tls = std::move(tls);
  secure.proxy_protocol = o.proxy_protocol;
  options.listeners.push_back(std::move(secure));
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string_view> args(argv + 1, argv + argc);
  const stet_server::parse_outcome cli = stet_server::parse_command_line(args);
  if (!cli.parsed) {
    std::fputs(cli.message.c_str(), cli.exit_code == 0 ? stdout : stderr);
    return cli.exit_code;
  }
  const stet_server::options& o = *cli.parsed;

  // These are taken by sigwait() in handle_signals(), so the worker threads
  // (which inherit this mask) are never interrupted by them.
  sigset_t signals;
  sigemptyset(&signals);
  for (const int s : {SIGINT, SIGTERM, SIGHUP, SIGUSR1}) sigaddset(&signals, s);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  stet::server_options options = o.server;
  options.access_log.enabled = o.access_log;
  options.access_log.path = o.access_log_file;
  options.access_log.format = stet::access_log_format::combined;
  // On by default here (the library's default is off, for BREACH): no answer
  // of this server puts a secret next to attacker-chosen input in its body.
  options.compression.enabled = o.compression;
  options.metrics = std::make_shared<stet::metrics>();
  options.readiness = std::make_shared<stet::readiness>();
  // The library reports; the example server chooses stderr.
  options.error_reporter = [](const stet::server_error& e) {
    std::fprintf(stderr, "stet-server: %.*s: %.*s\n", static_cast<int>(e.where.size()), e.where.data(),
                 static_cast<int>(e.detail.size()), e.detail.data());
  };

  add_tls_listener(o, options);

  std::shared_ptr<stet::static_files> files;
  try {
    stet::static_options static_options;
    static_options.revalidate_interval = std::chrono::milliseconds(o.static_revalidate_ms);
    static_options.watch_files = o.static_watch;
    static_options.compression = options.compression;
    files =
        std::make_shared<stet::static_files>(o.static_dir.empty() ? STET_EXAMPLE_SITE : o.static_dir, static_options);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "stet-server: --static: %s\n", e.what());
    return 1;
  }
  const stet_server::upload_dir_result uploads = stet_server::prepare_upload_dir(o.upload_dir);
  if (!uploads.error.empty()) {
    std::fprintf(stderr, "stet-server: %s\n", uploads.error.c_str());
    return 1;
  }
  if (o.upload_dir.empty()) std::fprintf(stderr, "stet-server: uploads go to %s\n", uploads.path.c_str());
  stet::report_metrics(*options.metrics, files);
  auto signer = std::make_shared<const stet::signer>(std::vector<std::string>{actor_secret(o.secret)}, "actor-cookie");
  stet::server server(make_routes(o, uploads.path, options.metrics, files, std::move(signer), options.readiness),
                      options);
  if (const stet::config_error failed = server.start()) {
    std::fprintf(stderr, "stet-server: cannot start: %s\n", failed.message().c_str());
    if (o.upload_dir.empty()) stet_server::remove_upload_dir(uploads.path);
    return 1;
  }

  for (std::size_t i = 0; i < options.listeners.size(); ++i) {
    const std::string line = stet_server::listen_description(options.listeners[i], server.port(i));
    std::fprintf(stderr, "stet-server: listening on %s\n", line.c_str());
  }

  std::atomic<bool> exiting{false};
  std::thread signal_thread([&] { handle_signals(signals, server, exiting); });
  server.wait();
  exiting = true;
  pthread_kill(signal_thread.native_handle(), SIGTERM);  // ends its sigwait()
  signal_thread.join();
  // The private upload directory made at start goes with the process; one given by --upload-dir stays.
  if (o.upload_dir.empty()) stet_server::remove_upload_dir(uploads.path);
  std::fprintf(stderr, "stet-server: stopped\n");
  return 0;
}
