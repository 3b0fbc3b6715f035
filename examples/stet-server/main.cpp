// stet-server: the bundled example server (its contract is in DESIGN.md).

#include <stet/stet.hpp>

#include "cli.hpp"

#include <fmt/core.h>

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

stet::router make_routes() {
  stet::router routes;
  routes.get("/plaintext", [](stet::request&) { return stet::response::text("Hello, World!"); });
  routes.get("/json", [](stet::request&) { return stet::response::json_text(R"({"message":"Hello, World!"})"); });
  routes.get("/healthz", [](stet::request&) { return stet::response::text("ok"); });
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
  stet::server server(make_routes(), options);
  if (const std::error_code ec = server.start()) {
    std::fprintf(stderr, "stet-server: cannot listen on %s:%u: %s\n", o.host.c_str(), o.port, ec.message().c_str());
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
