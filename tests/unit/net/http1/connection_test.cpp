// The connection's state machine over the in-memory transport: no sockets, so
// the bytes can be cut anywhere. A pipelined batch of mixed requests must get
// the same answers however it is split into reads (Beast's parsegrind idea),
// and an idle keep-alive connection must hold no exchange.

#include "net/http1/connection.hpp"

#include "support/memory_server.hpp"
#include "support/multipart_listing.hpp"

#include <stet/body.hpp>
#include <stet/multipart.hpp>
#include <stet/router.hpp>

#include <gtest/gtest.h>

#include <memory>
#include <regex>
#include <string>
#include <vector>

namespace {

using stet::test::multipart_listing;

using stet::detail::memory_stream;

// Sums the streamed body; answers with its length and its bytes' sum.
class summing_sink final : public stet::body_sink {
 public:
  stet::body_flow on_data(std::string_view piece) override {
    for (const char c : piece) sum_ += static_cast<unsigned char>(c);
    size_ += piece.size();
    return stet::body_flow::more;
  }
  stet::response on_end() override { return stet::response::text(std::to_string(size_) + ":" + std::to_string(sum_)); }
  void on_abort(std::error_code) noexcept override {}

 private:
  std::uint64_t size_ = 0;
  std::uint64_t sum_ = 0;
};

stet::router routes() {
  stet::router r;
  stet::route_options streamed;
  streamed.stream_body = true;
  r.put("/sink", streamed, [](stet::request&) { return stet::read_body(std::make_unique<summing_sink>()); });
  r.post("/form", streamed, [](stet::request& req) {
    return stet::read_body(std::make_unique<multipart_listing>(req.header("content-type").value_or("")));
  });
  r.get("/a", [](stet::request&) { return stet::response::text("alpha"); });
  r.post("/echo", [](stet::request& req) { return stet::response::text(req.body()); });
  r.get("/big", [](stet::request&) { return stet::response::text(std::string(40 * 1024, 'b')); });
  r.get("/stream", [](stet::request&) {
    stet::response s;
    s.set_stream([n = 0](stet::stream_writer& w) mutable {
      w.write(std::string(10'000 + n, static_cast<char>('0' + n)));
      return ++n < 3;
    });
    return s;
  });
  return r;
}

// The connection's routes on a worker the test turns by hand.
class memory_server : public stet::test::memory_server {
 public:
  /// `eviction_grace`: how long a connection must wait before it may be evicted.
  explicit memory_server(std::chrono::milliseconds eviction_grace = {})
      : stet::test::memory_server(routes(), with_grace(eviction_grace)) {}

 private:
  static stet::server_options with_grace(std::chrono::milliseconds grace) {
    stet::server_options o;
    o.eviction_grace = grace;
    return o;
  }
};

// The Date header is the only part of an answer that may differ between runs.
std::string without_dates(const std::string& wire) {
  static const std::regex date("Date: [^\r]*\r\n");
  return std::regex_replace(wire, date, "Date: -\r\n");
}

const std::string batch =
    "GET /a HTTP/1.1\r\nHost: x\r\n\r\n"
    "HEAD /a HTTP/1.1\r\nHost: x\r\n\r\n"
    "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 11\r\n\r\nhello world"
    "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6;ext=1\r\n world\r\n0\r\n\r\n"
    "GET /nowhere HTTP/1.1\r\nHost: x\r\n\r\n"
    "GET /big HTTP/1.1\r\nHost: x\r\n\r\n"
    "GET /a HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";

TEST(Connection, APipelinedBatchIsAnsweredInOrderAndClosedAfterConnectionClose) {
  memory_server server;
  const std::string out = server.exchange({batch});
  std::vector<std::string> statuses;
  static const std::regex status_line("HTTP/1\\.1 (\\d{3})");
  for (auto it = std::sregex_iterator(out.begin(), out.end(), status_line); it != std::sregex_iterator(); ++it) {
    statuses.push_back((*it)[1]);
  }
  EXPECT_EQ(statuses, (std::vector<std::string>{"200", "200", "200", "200", "404", "200", "200"}));
  EXPECT_NE(out.find("\r\n\r\nhello world"), std::string::npos);
  EXPECT_NE(out.find(std::string(40 * 1024, 'b')), std::string::npos);
  EXPECT_NE(out.rfind("Connection: close\r\n"), std::string::npos);
  EXPECT_EQ(out.substr(out.size() - 5), "alpha");
}

TEST(Connection, EverySplitOfAPipelinedBatchGetsTheSameAnswers) {
  memory_server server;
  const std::string expected = without_dates(server.exchange({batch}));
  ASSERT_FALSE(expected.empty());
  for (std::size_t at = 1; at < batch.size(); ++at) {
    const std::string got = without_dates(server.exchange({batch.substr(0, at), batch.substr(at)}));
    ASSERT_EQ(got, expected) << "split at byte " << at << " of " << batch.size();
  }
}

TEST(Connection, AByteAtATimeGetsTheSameAnswers) {
  memory_server server;
  const std::string expected = without_dates(server.exchange({batch}));
  std::vector<std::string> bytes;
  for (char c : batch) bytes.emplace_back(1, c);
  EXPECT_EQ(without_dates(server.exchange(bytes)), expected);
}

TEST(Connection, WritesTheStreamTakesInPiecesStillSendEveryByteInOrder) {
  memory_server server;
  const std::string request = "GET /stream HTTP/1.1\r\nHost: x\r\n\r\n" + batch;
  const std::string expected = without_dates(server.exchange({request}));
  EXPECT_NE(expected.find("Transfer-Encoding: chunked\r\n"), std::string::npos);
  EXPECT_NE(expected.find("2710\r\n" + std::string(10'000, '0') + "\r\n"), std::string::npos);
  EXPECT_NE(expected.find("0\r\n\r\nHTTP/1.1 200 OK"), std::string::npos);  // the stream ends before the next answer
  for (std::size_t limit : {1u, 7u, 4096u}) {
    EXPECT_EQ(without_dates(server.exchange({request}, limit)), expected) << "at most " << limit << " bytes per write";
  }
}

TEST(Connection, AFullStreamMakesTheWriteWaitAndResume) {
  memory_server server;
  auto stream = server.connect();
  stream->blocked_writes = 3;
  stream->feed("GET /big HTTP/1.1\r\nHost: x\r\n\r\n");
  ASSERT_TRUE(server.run_until([&] { return stream->output().size() > 40 * 1024; }));
  EXPECT_EQ(stream->blocked_writes, 0u);
  EXPECT_EQ(stream->output().substr(stream->output().size() - 10), std::string(10, 'b'));
}

TEST(Connection, AnIdleKeepAliveConnectionHoldsNoExchange) {
  memory_server server;
  auto stream = server.connect();
  stream->feed("GET /a HTTP/1.1\r\nHost: x\r\n\r\n");
  ASSERT_TRUE(server.run_until([&] { return stream->output().find("alpha") != std::string::npos; }));
  server.worker().io().poll();
  // Answered and waiting for the next request: its exchange is back in the pool.
  EXPECT_EQ(server.worker().exchanges().spares(), 1u);
  EXPECT_EQ(server.worker().exchanges().created(), 1u);

  stream->take_output();
  stream->feed("GET /a HTTP/1.1\r\nHost: x\r\n\r\n");
  ASSERT_TRUE(server.run_until([&] { return stream->output().find("alpha") != std::string::npos; }));
  EXPECT_EQ(server.worker().exchanges().created(), 1u);  // the same one again: no new buffers
  EXPECT_FALSE(stream->closed());
}

TEST(Connection, AConnectionThatSentNothingHoldsNoExchange) {
  memory_server server;
  auto stream = server.connect();
  server.worker().io().poll();
  EXPECT_EQ(server.worker().exchanges().created(), 0u);
  stream->feed("GET /a HTTP/1.1\r\nHost: x\r\n\r\n");
  ASSERT_TRUE(server.run_until([&] { return stream->output().find("alpha") != std::string::npos; }));
  EXPECT_EQ(server.worker().exchanges().created(), 1u);
}

TEST(Connection, APartialHeadKeepsItsExchangeUntilTheHeadIsComplete) {
  memory_server server;
  auto stream = server.connect();
  stream->feed("GET /a HTTP/1.1\r\nHo");
  server.worker().io().poll();
  EXPECT_EQ(server.worker().exchanges().spares(), 0u);  // the half head lives in it
  stream->feed("st: x\r\n\r\n");
  ASSERT_TRUE(server.run_until([&] { return stream->output().find("alpha") != std::string::npos; }));
  server.worker().io().poll();
  EXPECT_EQ(server.worker().exchanges().spares(), 1u);
}

TEST(Connection, ManyIdleConnectionsShareOneExchange) {
  memory_server server;
  std::vector<std::shared_ptr<memory_stream>> streams;
  for (int i = 0; i < 50; ++i) {
    streams.push_back(server.connect());
    streams.back()->feed("GET /a HTTP/1.1\r\nHost: x\r\n\r\n");
    ASSERT_TRUE(server.run_until([&] { return streams.back()->output().find("alpha") != std::string::npos; }));
  }
  server.worker().io().poll();
  EXPECT_EQ(server.worker().exchanges().created(), 1u);
  EXPECT_EQ(server.worker().exchanges().spares(), 1u);
}

// ------------------------------------------------------------ eviction --
// At max_connections the worker makes room by closing the connection that has
// waited longest without a complete request, else the oldest idle keep-alive;
// never one whose bytes are already there to read.

TEST(ConnectionEviction, TheSilentConnectionThatWaitedLongestGoesFirst) {
  memory_server server;
  const auto first = server.connect();
  const auto second = server.connect();
  server.settle();
  EXPECT_TRUE(server.worker().evict_one());
  server.settle();
  EXPECT_TRUE(first->closed());
  EXPECT_FALSE(second->closed());
  EXPECT_EQ(server.worker()
                .counters()
                .connections_closed[static_cast<std::size_t>(stet::detail::close_reason::evicted_silent)],
            1u);
}

TEST(ConnectionEviction, APartialHeadOlderThanTheSilentOnesGoesBeforeThem) {
  memory_server server;
  const auto partial = server.connect();
  partial->feed("GET /a HTTP/1.1\r\nHo");
  server.settle();
  const auto silent = server.connect();
  server.settle();
  EXPECT_TRUE(server.worker().evict_one());
  server.settle();
  EXPECT_TRUE(partial->closed());
  EXPECT_FALSE(silent->closed());
}

TEST(ConnectionEviction, IdleKeepAlivesGoOnlyWhenNoneWaitsForARequest) {
  memory_server server;
  const auto idle = server.connect();
  idle->feed("GET /a HTTP/1.1\r\nHost: x\r\n\r\n");
  server.settle();
  ASSERT_NE(idle->output().find("alpha"), std::string::npos);
  const auto silent = server.connect();
  server.settle();
  EXPECT_TRUE(server.worker().evict_one());
  server.settle();
  EXPECT_TRUE(silent->closed());
  EXPECT_FALSE(idle->closed());
  EXPECT_TRUE(server.worker().evict_one());
  server.settle();
  EXPECT_TRUE(idle->closed());
  EXPECT_FALSE(server.worker().evict_one());  // nobody left
}

TEST(ConnectionEviction, NoConnectionYoungerThanTheGraceIsEvicted) {
  memory_server server(std::chrono::hours(1));
  const auto silent = server.connect();
  const auto idle = server.connect();
  idle->feed("GET /a HTTP/1.1\r\nHost: x\r\n\r\n");
  server.settle();
  EXPECT_FALSE(server.worker().evict_one());
  server.settle();
  EXPECT_FALSE(silent->closed());
  EXPECT_FALSE(idle->closed());
}

TEST(ConnectionEviction, AConnectionWithBytesWaitingIsNotEvicted) {
  memory_server server;
  const auto busy = server.connect();
  server.settle();
  busy->feed("GET /a HTTP/1.1\r\nHost: x\r\n\r\n");  // queued, not read yet
  EXPECT_FALSE(server.worker().evict_one());
  server.settle();
  EXPECT_NE(busy->output().find("alpha"), std::string::npos);
}

}  // namespace

// A streamed body, pipelined between plain requests, cut at every byte: the
// sink sees the same bytes and the answers come in the same order.
TEST(Connection, EverySplitOfAStreamedBodyGetsTheSameAnswers) {
  const std::string streamed =
      "GET /a HTTP/1.1\r\nHost: x\r\n\r\n"
      "PUT /sink HTTP/1.1\r\nHost: x\r\nContent-Length: 26\r\n\r\nabcdefghijklmnopqrstuvwxyz"
      "PUT /sink HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n4\r\ndefg\r\n0\r\n\r\n"
      "GET /a HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
  memory_server server;
  const std::string expected = without_dates(server.exchange({streamed}));
  EXPECT_NE(expected.find("\r\n\r\n26:2847"), std::string::npos) << expected;
  EXPECT_NE(expected.find("\r\n\r\n7:700"), std::string::npos) << expected;
  for (std::size_t at = 1; at < streamed.size(); ++at) {
    const std::string got = without_dates(server.exchange({streamed.substr(0, at), streamed.substr(at)}));
    ASSERT_EQ(got, expected) << "split at byte " << at << " of " << streamed.size();
  }
  std::vector<std::string> bytes;
  for (char c : streamed) bytes.emplace_back(1, c);
  EXPECT_EQ(without_dates(server.exchange(bytes)), expected);
}

// A multipart body through the connection, cut at every byte (so at every
// position around each boundary): the same parts every time.
TEST(Connection, EverySplitOfAStreamedMultipartBodyFindsTheSameParts) {
  const std::string body =
      "preamble\r\n--xyz\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nalpha\r\n"
      "--xyz\r\nContent-Disposition: form-data; name=\"f\"; filename=\"f.txt\"\r\nContent-Type: text/plain\r\n\r\n"
      "line one\r\n--xy not a boundary\r\n\r\n"
      "--xyz\r\nContent-Disposition: form-data; name=\"empty\"\r\n\r\n\r\n"
      "--xyz--\r\nepilogue";
  const std::string request =
      "POST /form HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=xyz\r\n"
      "Content-Length: " +
      std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body;
  memory_server server;
  const std::string expected = without_dates(server.exchange({request}));
  EXPECT_NE(expected.find("\r\n\r\na:5;f:31;empty:0;"), std::string::npos) << expected;
  for (std::size_t at = 1; at < request.size(); ++at) {
    const std::string got = without_dates(server.exchange({request.substr(0, at), request.substr(at)}));
    ASSERT_EQ(got, expected) << "split at byte " << at << " of " << request.size();
  }
}
