#pragma once
// A stet::server on 127.0.0.1, port 0, started for one test and stopped with it.

#include <stet/server.hpp>

#include <chrono>
#include <stdexcept>
#include <string>

namespace stet::test {

/// Options for tests: an ephemeral port, two workers, timeouts short enough to test.
inline server_options test_options() {
  server_options o;
  o.listeners = {{.address = "127.0.0.1:0"}};
  o.threads = 2;
  o.first_byte_timeout = std::chrono::milliseconds(2000);
  o.header_timeout = std::chrono::milliseconds(2000);
  o.idle_timeout = std::chrono::milliseconds(2000);
  o.body_timeout = std::chrono::milliseconds(2000);
  o.write_timeout = std::chrono::milliseconds(2000);
  o.linger_timeout = std::chrono::milliseconds(500);
  o.drain_timeout = std::chrono::milliseconds(2000);
  o.handler_timeout = std::chrono::milliseconds(2000);
  return o;
}

class running_server {
 public:
  explicit running_server(router routes, server_options options = test_options())
      : server_(std::move(routes), std::move(options)) {
    if (const std::error_code ec = server_.start()) throw std::runtime_error("server start: " + ec.message());
  }
  ~running_server() {
    server_.stop();
    server_.wait();
  }
  std::uint16_t port() const noexcept { return server_.port(); }
  stet::server& get() noexcept { return server_; }

 private:
  stet::server server_;
};

}  // namespace stet::test
