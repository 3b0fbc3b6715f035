// Streamed responses: ~64 KiB chunks, back-pressure from a slow reader, the
// producer never called for HEAD or after the client left, HTTP/1.0 framing.
#include <stet/stet.hpp>

#include "support/http_client.hpp"
#include "support/test_server.hpp"

#include <gtest/gtest.h>
#include <sys/socket.h>

#include <atomic>
#include <mutex>
#include <thread>
#include <vector>

namespace {

using stet::test::raw_client;
using stet::test::running_server;

struct stream_probe {
  std::atomic<int> calls{0};
  std::atomic<int> rows_written{0};
};

// rows lines of "row N\n", one call producing until the writer has ~64 KiB.
stet::response rows_stream(stream_probe& probe, int rows) {
  stet::response r = stet::response::text("");
  r.set_stream([&probe, rows, next = 0](stet::stream_writer& w) mutable {
    ++probe.calls;
    while (next < rows && w.wants_more()) {
      w.write("row " + std::to_string(next++) + "\n");
      ++probe.rows_written;
    }
    return next < rows;
  });
  return r;
}

std::string expected_rows(int rows) {
  std::string s;
  for (int i = 0; i < rows; ++i) s += "row " + std::to_string(i) + "\n";
  return s;
}

class Stream : public ::testing::Test {
 protected:
  void SetUp() override {
    stet::router r;
    r.get("/rows", [this](stet::request&) { return rows_stream(probe_, 20000); });
    r.get("/huge", [this](stet::request&) { return rows_stream(probe_, 50'000'000); });
    r.get("/throws", [](stet::request&) {
      stet::response res;
      res.set_stream([](stet::stream_writer&) -> bool { throw std::runtime_error("producer failed"); });
      return res;
    });
    r.get("/small", [](stet::request&) { return stet::response::text("after"); });
    r.get("/boom", [](stet::request&) -> stet::response { throw std::runtime_error("boom"); });
    stet::server_options options = stet::test::test_options();
    options.error_reporter = [this](const stet::server_error& e) {
      const std::lock_guard<std::mutex> lock(reported_mutex_);
      reported_.push_back(std::string(e.where) + ": " + std::string(e.detail));
    };
    server_ = std::make_unique<running_server>(std::move(r), options);
  }
  std::vector<std::string> reported() {
    const std::lock_guard<std::mutex> lock(reported_mutex_);
    return reported_;
  }
  std::mutex reported_mutex_;
  std::vector<std::string> reported_;
  stream_probe probe_;
  std::unique_ptr<running_server> server_;
};

TEST_F(Stream, ChunkedBodyArrivesWholeInLargeChunks) {
  raw_client client(server_->port());
  const auto r = client.request("GET", "/rows");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->header("transfer-encoding"), "chunked");
  EXPECT_FALSE(r->header("content-length"));
  EXPECT_EQ(r->body, expected_rows(20000));
  // ~228 KB of rows in ~64 KiB pieces: a handful of producer calls, not one per row.
  EXPECT_LE(probe_.calls.load(), 6);
}

TEST_F(Stream, HeadNeverCallsTheProducer) {
  raw_client client(server_->port());
  const auto r = client.request("HEAD", "/rows");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->header("transfer-encoding"), "chunked");
  EXPECT_TRUE(r->body.empty());
  EXPECT_EQ(probe_.calls.load(), 0);
  const auto next = client.request("GET", "/small");  // still in step
  ASSERT_TRUE(next);
  EXPECT_EQ(next->body, "after");
}

TEST_F(Stream, PipelinedRequestAfterAStreamIsAnsweredInOrder) {
  raw_client client(server_->port());
  ASSERT_TRUE(client.send("GET /rows HTTP/1.1\r\nHost: x\r\n\r\nGET /small HTTP/1.1\r\nHost: x\r\n\r\n"));
  const auto first = client.read_response();
  ASSERT_TRUE(first);
  EXPECT_EQ(first->body, expected_rows(20000));
  const auto second = client.read_response();
  ASSERT_TRUE(second);
  EXPECT_EQ(second->body, "after");
}

TEST_F(Stream, SlowReaderHoldsTheProducerBack) {
  raw_client client(server_->port());
  int small = 4096;  // a small receive buffer makes the server's socket fill quickly
  ::setsockopt(client.fd(), SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
  ASSERT_TRUE(client.send("GET /huge HTTP/1.1\r\nHost: x\r\n\r\n"));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const int rows_while_not_reading = probe_.rows_written.load();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  // Nothing read: the producer is parked, so memory stays bounded (socket buffers + one chunk).
  EXPECT_EQ(probe_.rows_written.load(), rows_while_not_reading);
  EXPECT_LT(rows_while_not_reading, 50'000'000 / 100);
}

TEST_F(Stream, ClientGoneStopsTheProducer) {
  {
    raw_client client(server_->port());
    ASSERT_TRUE(client.send("GET /huge HTTP/1.1\r\nHost: x\r\n\r\n"));
    char buf[1024];
    ASSERT_GT(::recv(client.fd(), buf, sizeof buf, 0), 0);
  }  // closed after the first bytes
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const int calls = probe_.calls.load();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(probe_.calls.load(), calls);
  EXPECT_LT(probe_.rows_written.load(), 50'000'000);
}

TEST_F(Stream, Http10BodyEndsAtClose) {
  raw_client client(server_->port());
  ASSERT_TRUE(client.send("GET /rows HTTP/1.0\r\n\r\n"));
  const std::string all = client.read_until_close();
  const auto r = stet::test::parse_response(all);
  ASSERT_TRUE(r);
  EXPECT_FALSE(r->header("transfer-encoding"));
  EXPECT_EQ(r->header("connection"), "close");
  EXPECT_EQ(r->body, expected_rows(20000));
}

TEST_F(Stream, ThrowingProducerClosesTheConnection) {
  raw_client client(server_->port());
  ASSERT_TRUE(client.send("GET /throws HTTP/1.1\r\nHost: x\r\n\r\n"));
  // The head went out before the producer ran; the close (with no last chunk) is the error signal.
  const std::string received = client.read_until_close();
  EXPECT_EQ(received.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << received;
  EXPECT_EQ(received.find("0\r\n\r\n"), std::string::npos);
  raw_client again(server_->port());
  const auto r = again.request("GET", "/small");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->body, "after");
  // Told to the embedder's reporter, not written to stderr by the library.
  EXPECT_EQ(reported(), std::vector<std::string>{"stream producer: producer failed"});
}

TEST_F(Stream, AHandlerThatThrowsIsReportedToTheServersErrorReporter) {
  raw_client client(server_->port());
  const auto r = client.request("GET", "/boom");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 500);
  EXPECT_EQ(reported(), std::vector<std::string>{"handler: boom"});
}

}  // namespace
