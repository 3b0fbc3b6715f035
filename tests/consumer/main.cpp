// Built against an installed stet through find_package: proves the package works.
#include <stet/stet.hpp>

#include <cstdio>

int main() {
  stet::router routes;
  routes.get("/", [](stet::request&) { return stet::response::text("hi"); });
  stet::server_options options;
  options.listeners = {{.address = "127.0.0.1:0"}};
  options.threads = 1;
  stet::server server(std::move(routes), options);
  if (server.start()) return 1;
  std::printf("consumer: stet %s listening on port %u\n", stet::version_string.data(), server.port());
  server.stop();
  server.wait();
  return server.port() != 0 ? 0 : 1;
}
