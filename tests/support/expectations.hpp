#pragma once
// GoogleTest checks shared by the integration tests.

#include "support/http_client.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <string_view>
#include <thread>

namespace stet::test {

/// Polls `condition` every few milliseconds until it holds or `timeout` passes.
inline bool eventually(const std::function<bool()>& condition,
                       std::chrono::milliseconds timeout = std::chrono::seconds(2)) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!condition()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

/// The next response on `client` is `status` with Connection: close, and the
/// server then closes the connection without sending anything else.
inline void expect_error_then_close(raw_client& client, int status,
                                    std::chrono::milliseconds timeout = std::chrono::seconds(2)) {
  const auto r = client.read_response(false, timeout);
  ASSERT_TRUE(r) << "no response; expected " << status;
  EXPECT_EQ(r->status, status) << r->body;
  ASSERT_EQ(r->header("connection"), "close");  // else waiting for the close is pointless
  EXPECT_TRUE(client.wait_closed(timeout)) << "the connection stayed open";
}

/// A fresh connection to `port` is still answered.
inline void expect_still_serving(std::uint16_t port) {
  raw_client fresh(port);
  ASSERT_TRUE(fresh.connected());
  const auto r = fresh.request("GET", "/plaintext");
  ASSERT_TRUE(r) << "a fresh connection was not answered";
  EXPECT_EQ(r->status, 200);
}

/// Sends `bytes` on a fresh connection: answered `status` with Connection:
/// close, the connection closed, and the server still serving others.
inline void expect_rejected(std::uint16_t port, std::string_view bytes, int status) {
  {
    raw_client client(port);
    ASSERT_TRUE(client.connected());
    ASSERT_TRUE(client.send(bytes));
    expect_error_then_close(client, status);
  }
  expect_still_serving(port);
}

}  // namespace stet::test
