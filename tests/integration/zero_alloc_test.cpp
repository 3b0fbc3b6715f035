// The steady state of a keep-alive request must not touch the heap. The client
// here uses fixed buffers only, so any allocation counted during the measured
// requests was made by the server.
#include <stet/stet.hpp>

#include "support/alloc_counter.hpp"
#include "support/http_client.hpp"
#include "support/test_server.hpp"

#include <gtest/gtest.h>
#include <sys/socket.h>

#include <array>
#include <cstring>

namespace {

using stet::test::raw_client;
using stet::test::running_server;

stet::router hot_routes() {
  stet::router r;
  r.get("/plaintext", [](stet::request&) { return stet::response::text("Hello, World!"); });
  r.get("/json", [](stet::request&) { return stet::response::json_text(R"({"message":"Hello, World!"})"); });
  // Control: builds a std::string per request, so the counter must see it.
  r.get("/allocating", [](stet::request&) { return stet::response::text(std::string(64, 'x')); });
  return r;
}

// Sends `request` and reads exactly one response of known size without allocating.
bool round_trip(int fd, std::string_view request, std::size_t response_size) {
  if (::send(fd, request.data(), request.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(request.size())) return false;
  std::array<char, 4096> in{};
  std::size_t got = 0;
  while (got < response_size) {
    const ssize_t n = ::recv(fd, in.data() + got, in.size() - got, 0);
    if (n <= 0) return false;
    got += static_cast<std::size_t>(n);
  }
  return got == response_size;
}

std::size_t response_size(raw_client& client, std::string_view request) {
  client.send(request);
  const auto r = client.read_response();
  if (!r) return 0;
  std::size_t size = std::strlen("HTTP/1.1 200 OK\r\n\r\n") + r->body.size();
  for (const auto& [name, value] : r->headers) size += name.size() + 2 + value.size() + 2;
  return size;
}

std::uint64_t allocations_over_1000_requests(std::string_view target, bool observed = false) {
  stet::server_options options = stet::test::test_options();
  options.threads = 1;
  if (observed) options.metrics = std::make_shared<stet::metrics>();
  running_server server(hot_routes(), options);
  raw_client client(server.port());
  EXPECT_TRUE(client.connected());
  const std::string request = "GET " + std::string(target) + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
  const std::size_t size = response_size(client, request);
  EXPECT_GT(size, 0u);

  bool ok = true;
  for (int i = 0; i < 100 && ok; ++i) ok = round_trip(client.fd(), request, size);  // warm up
  const std::uint64_t before = stet::test::total_allocations();
  for (int i = 0; i < 1000 && ok; ++i) ok = round_trip(client.fd(), request, size);
  const std::uint64_t allocations = stet::test::total_allocations() - before;
  EXPECT_TRUE(ok) << "a round trip failed";
  return allocations;
}

TEST(ZeroAllocation, KeepAlivePlaintext) { EXPECT_EQ(allocations_over_1000_requests("/plaintext"), 0u); }
TEST(ZeroAllocation, KeepAliveJson) { EXPECT_EQ(allocations_over_1000_requests("/json"), 0u); }
TEST(ZeroAllocation, KeepAliveWithMetricsOn) { EXPECT_EQ(allocations_over_1000_requests("/plaintext", true), 0u); }
TEST(ZeroAllocation, CounterSeesAnAllocatingHandler) {
  EXPECT_GE(allocations_over_1000_requests("/allocating"), 1000u);
}

}  // namespace
