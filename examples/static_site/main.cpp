// static_site: a directory served under /static, and a page that links its
// stylesheet by content hash, so browsers may cache it for a year and still
// never see a stale one. Run: static_site [PORT [DIR]] (DIR: examples/site).
#include <stet/stet.hpp>

#include <cstdio>
#include <memory>
#include <string>

int main(int argc, char** argv) {
  auto files = std::make_shared<stet::static_files>(argc > 2 ? argv[2] : STET_EXAMPLE_SITE);

  stet::router routes;
  // GET /static/{path*}: ETag, 304, Range, and for a `?_hash=` that matches the
  // file's content, Cache-Control: public, max-age=31536000, immutable. The
  // prefix is also what static_url() puts in front.
  stet::mount(routes, "/static", files);
  routes.get("/", [files](stet::request&) {
    // "/static/app.css?_hash=<16 hex>": hashed once per file version, then memoised.
    const std::string css = files->static_url("app.css");
    return stet::response::html("<!doctype html><html><head><link rel=\"stylesheet\" href=\"" + css +
                                "\"></head><body><h1>static_site</h1><p><a href=\"/static/\">the site</a></p>"
                                "</body></html>\n");
  });

  stet::server_options options;
  options.listeners = {{.address = std::string("127.0.0.1:") + (argc > 1 ? argv[1] : "8080")}};
  stet::server server(std::move(routes), options);
  const stet::config_error failed = stet::run_until_signal(server);  // SIGINT or SIGTERM: a graceful stop
  if (failed) std::fprintf(stderr, "static_site: %s\n", failed.message().c_str());
  return failed ? 1 : 0;
}
