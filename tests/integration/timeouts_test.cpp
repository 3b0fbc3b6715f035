// Header, body, idle and write timeouts, and max_requests_per_connection.
// Timeouts are a few hundred milliseconds; bounds on elapsed time are loose on
// purpose (shared CI cores, sanitizers) but still tell "fired" from "never".

#include "support/expectations.hpp"
#include "support/http_client.hpp"
#include "support/test_routes.hpp"
#include "support/test_server.hpp"

#include <sys/socket.h>

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>

namespace {

using namespace std::chrono_literals;
using namespace stet::test;
using clock_type = std::chrono::steady_clock;

struct timeouts {
  std::chrono::milliseconds first_byte = 2s;
  std::chrono::milliseconds header = 2s;
  std::chrono::milliseconds idle = 2s;
  std::chrono::milliseconds body = 2s;
  std::chrono::milliseconds write = 2s;
  std::size_t max_requests = 0;
};

stet::server_options with(const timeouts& t) {
  stet::server_options o = test_options();
  o.first_byte_timeout = t.first_byte;
  o.header_timeout = t.header;
  o.idle_timeout = t.idle;
  o.body_timeout = t.body;
  o.write_timeout = t.write;
  o.max_requests_per_connection = t.max_requests;
  return o;
}

std::chrono::milliseconds since(clock_type::time_point start) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(clock_type::now() - start);
}

/// `elapsed` is "about `timeout`": not much before it, not seconds after.
void expect_about(std::chrono::milliseconds elapsed, std::chrono::milliseconds timeout) {
  EXPECT_GE(elapsed, timeout * 7 / 10);
  EXPECT_LE(elapsed, timeout + 1500ms);
}

void expect_plaintext(raw_client& client) {
  const auto r = client.request("GET", "/plaintext");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
}

TEST(Timeouts, IdleKeepAliveConnectionIsClosedSilently) {
  test_app app;
  running_server server(app.routes(), with({.idle = 200ms}));
  raw_client client(server.port());
  expect_plaintext(client);
  const auto start = clock_type::now();
  EXPECT_EQ(client.read_until_close(3s), "");  // no 408 for a connection between requests
  expect_about(since(start), 200ms);
  EXPECT_TRUE(eventually([&] { return server.get().open_connections() == 0; }));
}

TEST(Timeouts, EachRequestRestartsTheIdleTimeout) {
  test_app app;
  running_server server(app.routes(), with({.idle = 300ms}));
  raw_client client(server.port());
  for (int i = 0; i < 6; ++i) {
    expect_plaintext(client);
    std::this_thread::sleep_for(100ms);
  }
  expect_plaintext(client);
}

TEST(Timeouts, SilentNewConnectionIsClosedWithoutAnswer) {
  test_app app;
  running_server server(app.routes(), with({.first_byte = 200ms}));
  raw_client client(server.port());
  const auto start = clock_type::now();
  EXPECT_EQ(client.read_until_close(3s), "");
  expect_about(since(start), 200ms);
}

TEST(Timeouts, PartialHeadGets408) {
  test_app app;
  running_server server(app.routes(), with({.header = 300ms}));
  raw_client client(server.port());
  const auto start = clock_type::now();
  ASSERT_TRUE(client.send("GET /plaintext HTTP/1.1\r\nHost: 127.0.0.1\r\n"));
  expect_error_then_close(client, 408, 3s);
  expect_about(since(start), 300ms);
  EXPECT_EQ(app.handled(), 0u);
}

TEST(Timeouts, HeadDeadlineIsNotExtendedByTrickling) {
  test_app app;
  running_server server(app.routes(), with({.header = 300ms}));
  raw_client client(server.port());
  const auto start = clock_type::now();
  ASSERT_TRUE(client.send("GET /plaintext HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: "));
  // A slowloris client: one byte every 50 ms would go on for 2 s.
  std::optional<stet::test::http_response> r;
  for (int i = 0; i < 40 && !r; ++i) {
    client.send("a");
    r = client.read_response(false, 50ms);
  }
  ASSERT_TRUE(r) << "the trickled head was never timed out";
  EXPECT_EQ(r->status, 408);
  expect_about(since(start), 300ms);
}

TEST(Timeouts, PartialHeadOfASecondRequestGets408) {
  test_app app;
  running_server server(app.routes(), with({.header = 300ms}));
  raw_client client(server.port());
  expect_plaintext(client);
  ASSERT_TRUE(client.send("GET /plaintext HTTP/1.1\r\n"));
  expect_error_then_close(client, 408, 3s);
}

TEST(Timeouts, PartialHeadIsGivenTheHeaderTimeoutNotTheIdleTimeout) {
  test_app app;
  running_server server(app.routes(), with({.header = 800ms, .idle = 200ms}));
  raw_client client(server.port());
  expect_plaintext(client);
  ASSERT_TRUE(client.send("GET /plaintext HTTP/1.1\r\n"));
  EXPECT_TRUE(client.quiet_for(400ms)) << "closed while a head was arriving";
  ASSERT_TRUE(client.send("Host: 127.0.0.1\r\n\r\n"));
  const auto r = client.read_response();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
}

TEST(Timeouts, StalledContentLengthBodyGets408) {
  test_app app;
  running_server server(app.routes(), with({.body = 200ms}));
  raw_client client(server.port());
  const auto start = clock_type::now();
  ASSERT_TRUE(client.send("POST /echo HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\nabc"));
  expect_error_then_close(client, 408, 3s);
  expect_about(since(start), 200ms);
  EXPECT_EQ(app.handled(), 0u);
}

TEST(Timeouts, StalledChunkedBodyGets408) {
  test_app app;
  running_server server(app.routes(), with({.body = 200ms}));
  raw_client client(server.port());
  ASSERT_TRUE(client.send(chunked_head("/echo") + chunk("abc") + "5\r\nab"));
  expect_error_then_close(client, 408, 3s);
}

TEST(Timeouts, BodyNeverSentAfterContinueGets408) {
  test_app app;
  running_server server(app.routes(), with({.body = 200ms}));
  raw_client client(server.port());
  ASSERT_TRUE(client.send("POST /echo HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nExpect: 100-continue\r\n\r\n"));
  const auto interim = client.read_response();
  ASSERT_TRUE(interim);
  EXPECT_EQ(interim->status, 100);
  expect_error_then_close(client, 408, 3s);
}

TEST(Timeouts, BodyTimeoutIsBetweenReadsNotForTheWholeBody) {
  test_app app;
  running_server server(app.routes(), with({.body = 300ms}));
  raw_client client(server.port());
  ASSERT_TRUE(client.send("POST /echo HTTP/1.1\r\nHost: a\r\nContent-Length: 8\r\n\r\n"));
  // 8 x 100 ms is well over the body timeout, but no single pause is.
  for (char c : std::string("abcdefgh")) {
    std::this_thread::sleep_for(100ms);
    ASSERT_TRUE(client.send(std::string_view(&c, 1)));
  }
  const auto r = client.read_response();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, "abcdefgh");
}

TEST(Timeouts, StalledReaderIsClosedAfterTheWriteTimeout) {
  test_app app;
  running_server server(app.routes(), with({.write = 300ms}));
  raw_client client(server.port());
  const int small = 4096;
  ::setsockopt(client.fd(), SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
  // Far more than the socket buffers hold; the client never reads.
  ASSERT_TRUE(client.send(get_request("/bytes?" + std::to_string(16 * 1024 * 1024))));
  ASSERT_TRUE(eventually([&] { return app.handled() == 1; }));
  const auto start = clock_type::now();
  EXPECT_TRUE(eventually([&] { return server.get().open_connections() == 0; }, 4s));
  expect_about(since(start), 300ms);
  expect_still_serving(server.port());
}

TEST(Timeouts, MaxRequestsPerConnectionClosesAfterTheLast) {
  test_app app;
  running_server server(app.routes(), with({.max_requests = 3}));
  raw_client client(server.port());
  for (int i = 1; i <= 3; ++i) {
    const auto r = client.request("GET", "/plaintext");
    ASSERT_TRUE(r) << i;
    EXPECT_EQ(r->status, 200);
    if (i < 3) {
      EXPECT_FALSE(r->header("connection")) << i;
    } else {
      EXPECT_EQ(r->header("connection"), "close");
    }
  }
  EXPECT_TRUE(client.wait_closed());
}

TEST(Timeouts, MaxRequestsPerConnectionWithPipelining) {
  test_app app;
  running_server server(app.routes(), with({.max_requests = 3}));
  raw_client client(server.port());
  std::string batch;
  for (int i = 0; i < 5; ++i) batch += get_request("/query?" + std::to_string(i));
  ASSERT_TRUE(client.send(batch));
  for (int i = 0; i < 3; ++i) {
    const auto r = client.read_response();
    ASSERT_TRUE(r) << i;
    EXPECT_EQ(r->body, std::to_string(i));
  }
  EXPECT_TRUE(client.wait_closed());
  EXPECT_EQ(app.handled(), 3u);
}

}  // namespace
