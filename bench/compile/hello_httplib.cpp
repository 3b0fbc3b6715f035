// cpp-httplib's equivalent of examples/hello/main.cpp (one GET route answering
// text, a port from the command line), for bench/compile/compile_time.sh: what
// a user's translation unit costs to compile with each library.
#include <httplib.h>

#include <charconv>
#include <cstdio>
#include <string>
#include <string_view>

int main(int argc, char** argv) {
  httplib::Server server;
  server.Get("/hello", [](const httplib::Request& req, httplib::Response& res) {
    res.set_content("Hello from " + req.path + "\n", "text/plain");
  });
  int port = 8080;
  if (argc > 1) {
    const std::string_view arg = argv[1];
    const auto [end, error] = std::from_chars(arg.data(), arg.data() + arg.size(), port);
    if (error != std::errc() || end != arg.data() + arg.size()) {
      std::fprintf(stderr, "hello: %s is not a port\n", argv[1]);
      return 2;
    }
  }
  std::printf("hello: listening on http://127.0.0.1:%d/\n", port);
  return server.listen("127.0.0.1", port) ? 0 : 1;
}
