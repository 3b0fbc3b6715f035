// stet::run_until_signal(): start, SIGTERM/SIGINT → staged stop after the
// requests in flight are answered, SIGHUP → the hook, a start error as a
// value, and the program's own signal dispositions put back afterwards. The
// signals are real ones sent to this process (kill(getpid(), ...)).

#include <stet/run.hpp>
#include <stet/stet.hpp>

#include "support/expectations.hpp"
#include "support/gate.hpp"
#include "support/http_client.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <future>
#include <optional>
#include <string>
#include <thread>

#include <unistd.h>

namespace {

using namespace std::chrono_literals;
using stet::test::eventually;
using stet::test::raw_client;

stet::server_options on_free_port() {
  stet::server_options o;
  o.listeners = {{.address = "127.0.0.1:0"}};
  o.threads = 1;
  return o;
}

// What SIGTERM does in this process right now.
void (*disposition(int sig))(int) {
  struct sigaction now {};
  sigaction(sig, nullptr, &now);
  return now.sa_handler;
}

// run_until_signal() on a thread of its own, reporting the port once started.
class running {
 public:
  running(stet::server& s, stet::run_options options = {}) {
    options.on_started = [this](stet::server& started) { port_.store(started.port()); };
    result_ = std::async(std::launch::async, [&s, options] { return stet::run_until_signal(s, options); });
  }
  std::uint16_t port() {
    EXPECT_TRUE(eventually([this] { return port_.load() != 0; }, 5s)) << "on_started was not called";
    return port_.load();
  }
  running(const running&) = delete;
  running& operator=(const running&) = delete;
  // A test that failed half-way still ends: the future's destructor waits for the call.
  ~running() {
    if (result_.valid() && !returned_within(0ms) && port_.load() != 0) kill(getpid(), SIGTERM);
  }
  bool returned_within(std::chrono::milliseconds t) { return result_.wait_for(t) == std::future_status::ready; }
  stet::config_error result() { return result_.get(); }

 private:
  std::atomic<std::uint16_t> port_{0};
  std::future<stet::config_error> result_;
};

TEST(RunUntilSignal, SigtermAnswersTheRequestInFlightThenReturns) {
  auto gate = std::make_shared<stet::test::gate>();
  stet::router routes;
  routes.get("/slow", [gate](stet::request&) {
    gate->pass();
    return stet::response::text("finished\n");
  });
  stet::server server(routes, on_free_port());
  const auto before = disposition(SIGTERM);
  running run(server);
  const std::uint16_t port = run.port();

  raw_client client(port);
  ASSERT_TRUE(client.send("GET /slow HTTP/1.1\r\nHost: x\r\n\r\n"));
  ASSERT_TRUE(eventually([&] { return gate->entered() == 1; }));
  ASSERT_EQ(kill(getpid(), SIGTERM), 0);
  // The stop waits for the request in flight: the server does not return yet.
  EXPECT_FALSE(run.returned_within(300ms));
  gate->open();
  const auto answer = client.read_response();
  ASSERT_TRUE(answer);
  EXPECT_EQ(answer->status, 200);
  EXPECT_EQ(answer->body, "finished\n");
  EXPECT_TRUE(client.wait_closed()) << "the connection outlived the stop";
  ASSERT_TRUE(run.returned_within(10s));
  EXPECT_FALSE(run.result());
  EXPECT_EQ(disposition(SIGTERM), before) << "the handler stayed installed";
  EXPECT_FALSE(raw_client(port).connected()) << "still accepting after the stop";
}

TEST(RunUntilSignal, SighupCallsTheHookAndSigintStops) {
  stet::router routes;
  routes.get("/", [](stet::request&) { return stet::response::text("up\n"); });
  stet::server server(routes, on_free_port());
  std::atomic<int> hangups{0};
  stet::run_options options;
  options.on_hangup = [&hangups](stet::server& s) {
    EXPECT_TRUE(s.ready());  // still serving
    hangups.fetch_add(1);
  };
  running run(server, options);
  const std::uint16_t port = run.port();
  ASSERT_EQ(kill(getpid(), SIGHUP), 0);
  ASSERT_TRUE(eventually([&] { return hangups.load() == 1; }));
  raw_client client(port);
  const auto answer = client.request("GET", "/");
  ASSERT_TRUE(answer);
  EXPECT_EQ(answer->body, "up\n");
  EXPECT_FALSE(run.returned_within(50ms));
  ASSERT_EQ(kill(getpid(), SIGINT), 0);
  ASSERT_TRUE(run.returned_within(10s));
  EXPECT_FALSE(run.result());
  EXPECT_EQ(hangups.load(), 1);
}

TEST(RunUntilSignal, ABusyPortIsOneErrorValueAndLeavesNoHandler) {
  stet::router routes;
  stet::server first(routes, on_free_port());
  ASSERT_FALSE(first.start());
  stet::server_options o = on_free_port();
  const std::string busy = "127.0.0.1:" + std::to_string(first.port());
  o.listeners = {{.address = busy}};
  stet::server second(routes, o);
  const auto before = disposition(SIGTERM);
  bool started = false;
  const stet::config_error failed =
      stet::run_until_signal(second, {.on_started = [&started](stet::server&) { started = true; }});
  ASSERT_TRUE(failed);
  EXPECT_EQ(failed.code(), std::errc::address_in_use);
  EXPECT_EQ(failed.message(), "listen on " + busy + ": Address already in use");
  EXPECT_FALSE(started);
  EXPECT_EQ(disposition(SIGTERM), before);
  first.stop();
  first.wait();
}

}  // namespace
