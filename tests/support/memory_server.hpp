#pragma once
// One worker whose event loop the test turns by hand, with connections over
// the in-memory transport: for byte-split and disconnect tests of the HTTP
// connection and of WebSocket sessions (unit tests only: it reaches into
// src/net).

#include "net/server/worker.hpp"
#include "support/memory_transport.hpp"

#include <stet/router.hpp>
#include <stet/server_options.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace stet::test {

/// Counts the connections its worker closed.
struct counting_host final : detail::connection_host {
  int closed = 0;
  void connection_closed() noexcept override { ++closed; }
};

class memory_server {
 public:
  explicit memory_server(router routes, server_options options = {})
      : options_(std::move(options)), routes_(std::move(routes)), worker_(host_, routes_, options_, nullptr) {}
  memory_server(const memory_server&) = delete;
  memory_server& operator=(const memory_server&) = delete;
  // Connections still parked on a read would otherwise keep themselves alive.
  ~memory_server() {
    for (const std::weak_ptr<detail::memory_stream>& s : streams_) {
      if (auto stream = s.lock()) stream->abandon();
    }
  }

  /// A new connection from 192.0.2.7:4000; the test feeds and reads its stream.
  std::shared_ptr<detail::memory_stream> connect() {
    auto stream = std::make_shared<detail::memory_stream>(worker_.io());
    streams_.push_back(stream);
    worker_.adopt(std::make_unique<detail::memory_transport>(stream), endpoint::parse("192.0.2.7", 4000));
    return stream;
  }
  /// Runs the loop until `done()` (or a bounded number of steps).
  template <class Done>
  bool run_until(Done done) {
    for (int steps = 0; steps < 1'000'000 && !done(); ++steps) worker_.io().run_one();
    return done();
  }
  /// Runs what is ready (bounded: a peer that never reads keeps a write retry ready).
  void run_ready() {
    for (int steps = 0; steps < 100'000 && worker_.io().poll_one() > 0; ++steps) {
    }
  }
  /// Runs every handler that is ready now.
  void settle() { worker_.io().poll(); }
  /// Feeds `chunks` (one read each), then an end of stream; runs until the
  /// connection closes; returns everything it wrote.
  std::string exchange(const std::vector<std::string>& chunks, std::size_t write_limit = SIZE_MAX) {
    const int closed_before = host_.closed;
    auto stream = connect();
    stream->write_limit = write_limit;
    for (const std::string& c : chunks) stream->feed(c);
    stream->feed_eof();
    EXPECT_TRUE(run_until([&] { return host_.closed > closed_before; }));
    return stream->take_output();
  }
  detail::worker& worker() noexcept { return worker_; }
  /// Connections closed so far.
  int closed() const noexcept { return host_.closed; }

 private:
  counting_host host_;
  server_options options_;
  router routes_;
  detail::worker worker_;
  std::vector<std::weak_ptr<detail::memory_stream>> streams_;
};

}  // namespace stet::test
