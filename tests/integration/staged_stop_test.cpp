// The staged stop: readiness turns false at once, accepting and serving go on
// for drain_delay, then new connections are refused while in-flight ones
// finish; liveness routes answer until the end. And the access log reopens.

#include <stet/stet.hpp>

#include "support/expectations.hpp"
#include "support/http_client.hpp"
#include "support/test_server.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

namespace {

using namespace std::chrono_literals;
using stet::test::eventually;
using stet::test::raw_client;

stet::router ready_routes(const std::shared_ptr<stet::readiness>& ready) {
  stet::router r;
  r.get("/healthz", [](stet::request&) { return stet::response::text("ok"); });
  r.get("/ready", [ready](stet::request&) { return ready->respond(); });
  return r;
}

int status_of(std::uint16_t port, std::string_view target) {
  raw_client client(port);
  if (!client.connected()) return -1;
  const auto r = client.request("GET", target);
  return r ? r->status : 0;
}

TEST(StagedStop, ReadyTurnsAtOnceWhileServingGoesOnForTheDelay) {
  auto ready = std::make_shared<stet::readiness>();
  stet::server_options o = stet::test::test_options();
  o.readiness = ready;
  o.drain_delay = 600ms;
  stet::server server(ready_routes(ready), o);
  EXPECT_FALSE(ready->ready());
  EXPECT_FALSE(server.ready());
  ASSERT_FALSE(server.start());
  EXPECT_TRUE(server.ready());
  const std::uint16_t port = server.port();
  EXPECT_EQ(status_of(port, "/ready"), 200);
  raw_client kept(port);  // a keep-alive connection from before the stop
  ASSERT_TRUE(kept.request("GET", "/healthz"));

  server.stop();
  EXPECT_FALSE(server.ready());
  EXPECT_FALSE(ready->ready());
  // During the delay: new connections are accepted and served, readiness says 503.
  EXPECT_EQ(status_of(port, "/ready"), 503);
  EXPECT_EQ(status_of(port, "/healthz"), 200);
  const auto on_kept = kept.request("GET", "/ready");
  ASSERT_TRUE(on_kept);
  EXPECT_EQ(on_kept->status, 503);
  EXPECT_EQ(on_kept->header("cache-control"), "no-store");
  // Then accepting stops (the connect is refused, or the connection closed unanswered).
  EXPECT_TRUE(eventually([&] { return status_of(port, "/healthz") <= 0; }, 10s));
  server.wait();
}

TEST(StagedStop, WithoutADelayAcceptingStopsAtOnce) {
  auto ready = std::make_shared<stet::readiness>();
  stet::server_options o = stet::test::test_options();
  o.readiness = ready;
  stet::server server(ready_routes(ready), o);
  ASSERT_FALSE(server.start());
  const std::uint16_t port = server.port();
  server.stop();
  EXPECT_FALSE(ready->ready());
  server.wait();
  EXPECT_LE(status_of(port, "/healthz"), 0);
}

TEST(StagedStop, AHeldReadinessIsNotReadyWhileTheServerServes) {
  auto ready = std::make_shared<stet::readiness>();
  stet::server_options o = stet::test::test_options();
  o.readiness = ready;
  stet::test::running_server server(ready_routes(ready), o);
  ready->hold(true);
  EXPECT_EQ(status_of(server.port(), "/ready"), 503);
  EXPECT_EQ(status_of(server.port(), "/healthz"), 200);
  ready->hold(false);
  EXPECT_EQ(status_of(server.port(), "/ready"), 200);
}

TEST(StagedStop, TheAccessLogReopensAfterARotation) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path();
  const std::filesystem::path log = dir / ("stet-rotate-" + std::to_string(::getpid()) + ".log");
  const std::filesystem::path rotated = dir / ("stet-rotate-" + std::to_string(::getpid()) + ".log.1");
  auto ready = std::make_shared<stet::readiness>();
  stet::server_options o = stet::test::test_options();
  o.threads = 1;
  o.access_log.enabled = true;
  o.access_log.path = log.string();
  const auto lines = [](const std::filesystem::path& p) {
    std::ifstream in(p);
    std::size_t n = 0;
    for (std::string line; std::getline(in, line);) ++n;
    return n;
  };
  {
    stet::test::running_server server(ready_routes(ready), o);
    EXPECT_EQ(status_of(server.port(), "/healthz"), 200);
    ASSERT_TRUE(eventually([&] { return lines(log) == 1; }, 5s));  // a batch goes out within a second
    std::filesystem::rename(log, rotated);
    EXPECT_FALSE(server.get().reopen_access_log());
    EXPECT_EQ(status_of(server.port(), "/healthz"), 200);
    EXPECT_EQ(status_of(server.port(), "/healthz"), 200);
  }
  EXPECT_EQ(lines(rotated), 1u);
  EXPECT_EQ(lines(log), 2u);
  std::filesystem::remove(log);
  std::filesystem::remove(rotated);
}

TEST(StagedStop, ReopeningALogThatCannotBeOpenedKeepsTheOldOne) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("stet-noperm-" + std::to_string(::getpid()));
  std::filesystem::create_directory(dir);
  stet::server_options o = stet::test::test_options();
  o.access_log.enabled = true;
  o.access_log.path = (dir / "access.log").string();
  auto ready = std::make_shared<stet::readiness>();
  stet::test::running_server server(ready_routes(ready), o);
  std::filesystem::remove(dir / "access.log");
  std::filesystem::remove(dir);  // nowhere to create the file again
  const stet::config_error failed = server.get().reopen_access_log();
  EXPECT_TRUE(failed);
  EXPECT_NE(failed.message().find("access log"), std::string::npos) << failed.message();
  EXPECT_EQ(status_of(server.port(), "/healthz"), 200);
}

}  // namespace
