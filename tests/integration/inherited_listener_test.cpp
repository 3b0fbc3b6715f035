// Listening sockets handed over ready-made, as systemd socket activation does
// (listen address "fd:N", and "systemd" read from LISTEN_PID/LISTEN_FDS): the
// server accepts on them without binding anything, and leaves a unix
// socket's file to whoever made it.

#include <stet/stet.hpp>

#include "support/http_client.hpp"
#include "support/test_server.hpp"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

namespace {

using stet::test::raw_client;

stet::router routes() {
  stet::router r;
  r.get("/plaintext", [](stet::request&) { return stet::response::text("Hello, World!"); });
  return r;
}

// A TCP socket listening on 127.0.0.1 with a free port, as a socket unit would make it.
int listening_tcp(std::uint16_t& port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in at{};
  at.sin_family = AF_INET;
  at.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof at;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&at), sizeof at) != 0 || ::listen(fd, 16) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&at), &length) != 0) {
    ::close(fd);
    return -1;
  }
  port = ntohs(at.sin_port);
  return fd;
}

stet::server_options on(const std::string& address) {
  stet::server_options o = stet::test::test_options();
  o.listeners = {{address}};
  return o;
}

TEST(InheritedListener, AnInheritedTcpSocketIsServedAsItIs) {
  std::uint16_t port = 0;
  const int fd = listening_tcp(port);
  ASSERT_GE(fd, 3);
  stet::test::running_server server(routes(), on("fd:" + std::to_string(fd)));
  EXPECT_EQ(server.port(), port);
  raw_client client(port);
  const auto r = client.request("GET", "/plaintext");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->body, "Hello, World!");
}

TEST(InheritedListener, AnInheritedUnixSocketsFileIsLeftAlone) {
  const std::string path =
      (std::filesystem::temp_directory_path() / ("stet-inherit-" + std::to_string(::getpid()))).string();
  const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un at{};
  at.sun_family = AF_UNIX;
  path.copy(at.sun_path, sizeof at.sun_path - 1);
  ::unlink(path.c_str());
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&at), sizeof at), 0);
  ASSERT_EQ(::listen(fd, 16), 0);
  {
    stet::test::running_server server(routes(), on("fd:" + std::to_string(fd)));
    const int c = ::socket(AF_UNIX, SOCK_STREAM, 0);
    ASSERT_EQ(::connect(c, reinterpret_cast<sockaddr*>(&at), sizeof at), 0);
    const std::string get = "GET /plaintext HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
    ASSERT_EQ(::send(c, get.data(), get.size(), 0), static_cast<ssize_t>(get.size()));
    std::string answer;
    char buffer[1024];
    for (ssize_t n; (n = ::recv(c, buffer, sizeof buffer, 0)) > 0;) answer.append(buffer, static_cast<std::size_t>(n));
    ::close(c);
    EXPECT_NE(answer.find("Hello, World!"), std::string::npos) << answer;
  }
  EXPECT_TRUE(std::filesystem::exists(path)) << "the unit that made it owns the file";
  ::unlink(path.c_str());
}

TEST(InheritedListener, ADescriptorThatIsNoListeningSocketIsAStartError) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);  // never listened
  stet::server server(routes(), on("fd:" + std::to_string(fd)));
  const stet::config_error failed = server.start();
  ASSERT_TRUE(failed);
  EXPECT_EQ(failed.message(), "listen on fd:" + std::to_string(fd) + ": not a listening socket");
  ::close(fd);
  stet::server low(routes(), on("fd:2"));
  const stet::config_error refused = low.start();
  ASSERT_TRUE(refused);
  EXPECT_NE(refused.message().find("from 3"), std::string::npos) << refused.message();
}

TEST(InheritedListener, SystemdStandsForThePassedSockets) {
  std::uint16_t port = 0;
  const int fd = listening_tcp(port);
  ASSERT_GE(fd, 3);
  // The protocol numbers sockets from 3; a test process has other descriptors
  // there, so the listening socket is moved to the first free one after them.
  const int moved = ::fcntl(fd, F_DUPFD, 3);
  ASSERT_GE(moved, 3);
  ::close(fd);
  ::setenv("LISTEN_PID", std::to_string(::getpid()).c_str(), 1);
  ::setenv("LISTEN_FDS", std::to_string(moved - 2).c_str(), 1);
  ::setenv("LISTEN_FDNAMES", "", 1);
  // Every descriptor below `moved` counts as passed too: only `moved` is named.
  std::string names;
  for (int i = 3; i < moved; ++i) names += "other:";
  names += "web";
  ::setenv("LISTEN_FDNAMES", names.c_str(), 1);
  {
    stet::test::running_server server(routes(), on("systemd:web"));
    EXPECT_EQ(server.port(), port);
    raw_client client(port);
    const auto r = client.request("GET", "/plaintext");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->body, "Hello, World!");
  }
  stet::server none(routes(), on("systemd:nothing"));
  const stet::config_error failed = none.start();
  ASSERT_TRUE(failed);
  EXPECT_NE(failed.message().find("systemd passed no socket of that name"), std::string::npos) << failed.message();
  ::unsetenv("LISTEN_PID");
  ::unsetenv("LISTEN_FDS");
  ::unsetenv("LISTEN_FDNAMES");
}

}  // namespace
