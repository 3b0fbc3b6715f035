// The route is matched once, from the head, and kept with the exchange until
// dispatch; the request is assembled once. What may invalidate that match:
// a new route table swapped in while the body arrives (a route added then),
// and the head moving in the buffer (a streaming route wants room behind it,
// a long head makes the buffer grow). Each must leave the answer as if the
// request had been read in one piece.
#include "support/memory_server.hpp"

#include <stet/body.hpp>
#include <stet/router.hpp>

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace {

// Collects the body; answers with what the handler saw at the head and the body.
class collecting_sink final : public stet::body_sink {
 public:
  explicit collecting_sink(std::string seen) : seen_(std::move(seen)) {}
  stet::body_flow on_data(std::string_view piece) override {
    body_ += piece;
    return stet::body_flow::more;
  }
  stet::response on_end() override { return stet::response::text(seen_ + "|" + body_); }
  void on_abort(std::error_code) noexcept override {}

 private:
  std::string seen_;
  std::string body_;
};

// What a handler saw of its request, in one line.
std::string seen(const stet::request& req) {
  return std::string(req.method_name()) + " " + std::string(req.target()) + " " +
         std::string(req.params().get("name").value_or("-")) + " " + std::string(req.header("x-tag").value_or("-")) +
         " " + std::string(req.host());
}

stet::router routes() {
  stet::router r;
  stet::route_options streamed;
  streamed.stream_body = true;
  r.put("/up/{name}", streamed,
        [](stet::request& req) { return stet::read_body(std::make_unique<collecting_sink>(seen(req))); });
  r.post("/echo/{name}",
         [](stet::request& req) { return stet::response::text(seen(req) + "|" + std::string(req.body())); });
  r.get("/a", [](stet::request&) { return stet::response::text("alpha"); });
  return r;
}

std::string body_of_last(const std::string& wire) { return wire.substr(wire.rfind("\r\n\r\n") + 4); }

// The head matched no route; a route for it is added before its body comes:
// the request is answered by the new route (the match kept from the head
// belonged to the old table, whose generation dispatch no longer sees).
TEST(RouteMatch, ARouteAddedWhileTheBodyArrivesAnswersIt) {
  stet::router r = routes();
  stet::test::memory_server server(r);
  auto stream = server.connect();
  stream->feed("POST /late/x HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\n");
  server.run_ready();
  r.post("/late/{name}", [](stet::request& req) {
    return stet::response::text("late " + std::string(req.params().get("name").value_or("-")) + " " +
                                std::string(req.body()));
  });
  stream->feed("hello");
  stream->feed_eof();
  ASSERT_TRUE(server.run_until([&] { return server.closed() > 0; }));
  const std::string out = stream->take_output();
  EXPECT_EQ(out.substr(0, 15), "HTTP/1.1 200 OK") << out;
  EXPECT_EQ(body_of_last(out), "late x hello");
}

// A streaming route's head is moved to the buffer's front (behind a pipelined
// request) and into a larger buffer: its views, fields and captures follow it.
TEST(RouteMatch, AStreamingHeadThatMovesKeepsItsViewsAndCaptures) {
  stet::test::memory_server server(routes());
  const std::string wire =
      "GET /a HTTP/1.1\r\nHost: h\r\n\r\n"
      "PUT /up/n%41me?q=1 HTTP/1.1\r\nHost: h.example\r\nX-Tag: t1\r\nContent-Length: 4\r\n\r\nbody";
  for (std::size_t at = 1; at < wire.size(); at += 7) {
    const std::string out = server.exchange({wire.substr(0, at), wire.substr(at)});
    EXPECT_EQ(body_of_last(out), "PUT /up/n%41me?q=1 nAme t1 h.example|body") << "split at " << at << ":\n" << out;
  }
}

// A head that ends near the end of the buffer leaves too little room to read
// its body: the head moves to the front (behind a pipelined request) or into
// a larger buffer (when it is already at the front) after the request was
// built and matched. What the handler reads is what was sent.
TEST(RouteMatch, AHeadMovedForItsBodyKeepsTheRequestItWasBuiltFor) {
  stet::server_options options;
  options.max_header_bytes = 64 * 1024;
  stet::test::memory_server server(routes(), options);
  for (const std::string before : {"", "GET /a HTTP/1.1\r\nHost: h\r\n\r\n"}) {
    for (std::size_t filler = 6000; filler < 8200; filler += 150) {
      const std::string head = "POST /echo/who HTTP/1.1\r\nHost: h\r\nX-Filler: " + std::string(filler, 'f') +
                               "\r\nX-Tag: t2\r\nContent-Length: 3\r\n\r\n";
      const std::string out = server.exchange({before + head, "abc"});
      EXPECT_EQ(body_of_last(out), "POST /echo/who who t2 h|abc")
          << "filler " << filler << (before.empty() ? "" : ", behind a GET") << ": " << out.substr(0, 100);
    }
  }
}

}  // namespace
