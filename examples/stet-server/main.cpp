// stet-server: the bundled example server (its contract is in DESIGN.md).

#include <stet/static_files.hpp>
#include <stet/stet.hpp>

#include "cli.hpp"

#include <fmt/format.h>

#include <charconv>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <string>
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
<li><a href="/stream?rows=1000">/stream?rows=1000</a></li>
</ul>
</body>
</html>
)",
                                          css));
}

stet::router make_routes(const std::shared_ptr<stet::metrics>& metrics,
                         const std::shared_ptr<stet::static_files>& files, std::string_view static_prefix) {
  stet::router routes;
  stet::mount(routes, static_prefix, files);
  routes.get("/", [files](stet::request&) { return home_page(*files); });
  routes.get("/favicon.ico", [files](stet::request& req) { return files->respond(req, "favicon.ico"); });
  routes.get("/-/metrics", [metrics](stet::request&) { return metrics->respond(); });
  routes.get("/plaintext", [](stet::request&) { return stet::response::text("Hello, World!"); });
  routes.get("/json", [](stet::request&) {
    return stet::response::json(
        [](stet::json::writer& w) { w.begin_object().member("message", "Hello, World!").end_object(); });
  });
  routes.get("/healthz", [](stet::request&) { return stet::response::text("ok"); });
  routes.get("/stream", csv_stream);
  routes.get("/-/versions.json",
             [versions = versions_json()](stet::request&) { return stet::response::json_text(versions); });
  // A non-integer id does not match the route: 404.
  routes.get("/users/{id:int}", [](stet::request&, std::int64_t id) {
    return stet::response::json_text(fmt::format(R"({{"id":{}}})", id));
  });
  return routes;
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

  // SIGINT/SIGTERM are taken by sigwait() below, so the worker threads (which
  // inherit this mask) are never interrupted by them.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  stet::server_options options;
  options.host = o.host;
  options.port = o.port;
  options.threads = o.threads;
  options.access_log.enabled = o.access_log;
  options.access_log.path = o.access_log_file;
  options.access_log.format = stet::access_log_format::combined;
  options.metrics = std::make_shared<stet::metrics>();

  std::shared_ptr<stet::static_files> files;
  try {
    stet::static_options static_options;
    static_options.url_prefix = o.static_prefix + "/";
    files =
        std::make_shared<stet::static_files>(o.static_dir.empty() ? STET_EXAMPLE_SITE : o.static_dir, static_options);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "stet-server: --static: %s\n", e.what());
    return 1;
  }
  stet::report_metrics(*options.metrics, files);
  stet::server server(make_routes(options.metrics, files, o.static_prefix), options);
  if (const std::error_code ec = server.start()) {
    std::fprintf(stderr, "stet-server: cannot start on %s:%u: %s\n", o.host.c_str(), o.port, ec.message().c_str());
    return 1;
  }
  std::fprintf(stderr, "stet-server: listening on http://%s:%u/\n", o.host.c_str(), server.port());

  int received = 0;
  sigwait(&stop_signals, &received);
  std::fprintf(stderr, "stet-server: %s received, draining\n", received == SIGINT ? "SIGINT" : "SIGTERM");
  server.stop();
  server.wait();
  std::fprintf(stderr, "stet-server: stopped\n");
  return 0;
}
