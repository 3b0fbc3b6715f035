#pragma once
// A real redis-server for the Redis bus tests: started on 127.0.0.1 with a
// free port and no persistence, stopped (or killed, or paused) by its PID. A
// missing redis-server binary fails the test that needs it; it never skips.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace stet::test {

/// A port nobody listens on right now (bound to 0, then closed).
inline std::uint16_t free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  ::close(fd);
  return ntohs(a.sin_port);
}

class redis_server {
 public:
  /// Not started: start() it (the port is chosen now, so a bus may be pointed
  /// at it before Redis is there).
  explicit redis_server(std::vector<std::string> extra = {}) : port_(free_port()), extra_(std::move(extra)) {}
  redis_server(const redis_server&) = delete;
  redis_server& operator=(const redis_server&) = delete;
  // A paused one too: SIGCONT first, so nothing is left stopped whatever the test did.
  ~redis_server() {
    resume();
    stop(SIGKILL);
  }

  std::uint16_t port() const noexcept { return port_; }
  std::string url() const { return "redis://127.0.0.1:" + std::to_string(port_); }

  /// Starts redis-server and waits (up to 5 s) until it answers PING. False
  /// when it could not be started or never answered.
  bool start() {
    std::vector<std::string> argv{
        "redis-server", "--port", std::to_string(port_), "--bind",  "127.0.0.1", "--save",   "",
        "--appendonly", "no",     "--loglevel",          "warning", "--logfile", "/dev/null"};
    argv.insert(argv.end(), extra_.begin(), extra_.end());
    std::vector<char*> args;
    for (std::string& a : argv) args.push_back(a.data());
    args.push_back(nullptr);
    if (posix_spawnp(&pid_, "redis-server", nullptr, nullptr, args.data(), environ) != 0) {
      pid_ = 0;
      return false;
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (std::chrono::steady_clock::now() < deadline) {
      if (answers_ping()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
  }
  /// Stops it with `signal` (SIGKILL: a crash) and reaps it.
  void stop(int signal = SIGTERM) {
    if (pid_ <= 0) return;
    ::kill(pid_, signal);
    ::waitpid(pid_, nullptr, 0);
    pid_ = 0;
  }
  /// SIGSTOP / SIGCONT: Redis stays connected but answers nothing.
  void pause() {
    if (pid_ > 0) ::kill(pid_, SIGSTOP);
  }
  void resume() {
    if (pid_ > 0) ::kill(pid_, SIGCONT);
  }

 private:
  bool answers_ping() const {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port_);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bool ok = false;
    if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 && ::write(fd, "PING\r\n", 6) == 6) {
      char reply[16] = {};
      ok = ::read(fd, reply, sizeof reply) >= 5 && std::string(reply, 5) == "+PONG";
    }
    ::close(fd);
    return ok;
  }

  std::uint16_t port_;
  std::vector<std::string> extra_;
  pid_t pid_ = 0;
};

}  // namespace stet::test
