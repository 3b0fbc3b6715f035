// hello: the README's first program. Run: hello [PORT] (8080 by default; 0 picks a free port).
#include <stet/stet.hpp>

#include <cstdlib>
#include <string>

int main(int argc, char** argv) {
  stet::router routes;
  routes.get("/hello",
             [](stet::request& req) { return stet::response::text("Hello from " + std::string(req.path()) + "\n"); });

  stet::server_options options;
  options.port = static_cast<std::uint16_t>(std::atoi(argc > 1 ? argv[1] : "8080"));
  stet::server server(std::move(routes), options);
  server.run();  // until server.stop() is called from another thread
}
