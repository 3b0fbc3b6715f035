// hello: the README's first program. Run: hello [PORT] (8080 by default; 0 picks a free port).
// Ctrl-C or SIGTERM stops it gracefully: requests in flight are answered first.
#include <stet/run.hpp>     // run_until_signal
#include <stet/server.hpp>  // server, router, request, response (JSON answers: <stet/json.hpp>)

#include <charconv>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

int main(int argc, char** argv) {
  stet::router routes;
  routes.get("/hello",
             [](stet::request& req) { return stet::response::text("Hello from " + std::string(req.path()) + "\n"); });

  stet::server_options options;  // listens on 127.0.0.1:8080
  if (argc > 1) {
    const std::string_view arg = argv[1];
    std::uint16_t port = 0;
    const auto [end, error] = std::from_chars(arg.data(), arg.data() + arg.size(), port);
    if (error != std::errc() || end != arg.data() + arg.size()) {
      std::fprintf(stderr, "hello: %s is not a port (0 to 65535)\n", argv[1]);
      return 2;
    }
    options.listeners = {{.address = "127.0.0.1:" + std::to_string(port)}};
  }
  stet::server server(std::move(routes), options);
  stet::run_options run;
  run.on_started = [](stet::server& s) {
    std::printf("hello: listening on http://127.0.0.1:%u/\n", unsigned{s.port()});
    std::fflush(stdout);  // at once, also when stdout is a pipe
  };
  const stet::config_error failed = stet::run_until_signal(server, run);  // until SIGINT or SIGTERM
  if (failed) std::fprintf(stderr, "hello: %s\n", failed.message().c_str());
  return failed ? 1 : 0;
}
