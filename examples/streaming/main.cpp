// streaming: a CSV of any length sent with chunked transfer coding. The
// producer is called for each ~64 KiB piece only after the previous one was
// written, so memory stays flat and a slow client slows the producer down.
// Run: streaming [PORT], then: curl 'localhost:8080/rows.csv?n=1000000' | tail -1
#include <stet/stet.hpp>

#include <fmt/format.h>

#include <charconv>
#include <cstdint>
#include <cstdio>
#include <iterator>
#include <string>

namespace {

stet::response rows_csv(stet::request& req) {
  std::uint64_t rows = 10;
  if (const std::optional<std::string_view> n = req.query().get("n")) {
    const auto [end, ec] = std::from_chars(n->data(), n->data() + n->size(), rows);
    if (ec != std::errc() || end != n->data() + n->size() || rows > 100'000'000) {
      return stet::response::text("n must be an integer from 0 to 100000000\n", stet::status::bad_request);
    }
  }
  stet::response r;
  r.set_header("Content-Type", "text/csv; charset=utf-8");
  // The state lives in the producer: `next` is the row the next call starts at.
  r.set_stream([rows, next = std::uint64_t{0}](stet::stream_writer& out) mutable {
    if (next == 0) out.write("id,square\n");
    while (next < rows && out.wants_more()) {  // fill this piece, then return
      fmt::format_to(std::back_inserter(out.buffer()), "{},{}\n", next, next * next);
      ++next;
    }
    return next < rows;  // false: that was the last piece
  });
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  stet::router routes;
  routes.get("/rows.csv", rows_csv);

  stet::server_options options;
  options.listeners = {{.address = std::string("127.0.0.1:") + (argc > 1 ? argv[1] : "8080")}};
  stet::server server(std::move(routes), options);
  const stet::config_error failed = stet::run_until_signal(server);  // SIGINT or SIGTERM: a graceful stop
  if (failed) std::fprintf(stderr, "streaming: %s\n", failed.message().c_str());
  return failed ? 1 : 0;
}
