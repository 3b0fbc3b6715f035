// The LISTEN_PID / LISTEN_FDS / LISTEN_FDNAMES protocol of systemd socket
// activation, read from the environment.

#include "net/accept/socket_activation.hpp"  // Test that the header file is self-contained.

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <string>

namespace {

using stet::detail::expand_inherited;
using stet::detail::inherited_sockets;

// Sets the three variables for one test, and unsets them after it.
class SocketActivation : public ::testing::Test {
 protected:
  void set(const std::string& pid, const char* fds, const char* names = nullptr) {
    ::setenv("LISTEN_PID", pid.c_str(), 1);
    ::setenv("LISTEN_FDS", fds, 1);
    if (names != nullptr) ::setenv("LISTEN_FDNAMES", names, 1);
  }
  void TearDown() override {
    ::unsetenv("LISTEN_PID");
    ::unsetenv("LISTEN_FDS");
    ::unsetenv("LISTEN_FDNAMES");
  }
  static std::string own_pid() { return std::to_string(::getpid()); }
};

TEST_F(SocketActivation, SocketsFromThreeOnNamedInOrder) {
  set(own_pid(), "3", "web:admin:");
  ::setenv("LISTEN_FDS", "3", 1);
  const auto sockets = inherited_sockets();
  ASSERT_EQ(sockets.size(), 3u);
  EXPECT_EQ(sockets[0].fd, 3);
  EXPECT_EQ(sockets[0].name, "web");
  EXPECT_EQ(sockets[1].fd, 4);
  EXPECT_EQ(sockets[1].name, "admin");
  EXPECT_EQ(sockets[2].fd, 5);
  EXPECT_EQ(sockets[2].name, "unknown");  // named empty, or past the list
}

TEST_F(SocketActivation, NothingForAnotherProcessOrMalformedVariables) {
  set(std::to_string(::getpid() + 1), "2");
  EXPECT_TRUE(inherited_sockets().empty());  // meant for the parent that exec'd us, or a child
  set(own_pid(), "two");
  EXPECT_TRUE(inherited_sockets().empty());
  set(own_pid(), "0");
  EXPECT_TRUE(inherited_sockets().empty());
  set(own_pid() + "x", "1");
  EXPECT_TRUE(inherited_sockets().empty());
}

TEST_F(SocketActivation, SystemdExpandsToEveryOrTheNamedSockets) {
  set(own_pid(), "2", "web:admin");
  std::string why;
  EXPECT_EQ(expand_inherited("systemd", why), (std::vector<std::string>{"fd:3", "fd:4"}));
  EXPECT_EQ(expand_inherited("systemd:admin", why), (std::vector<std::string>{"fd:4"}));
  EXPECT_TRUE(expand_inherited("systemd:other", why).empty());
  EXPECT_NE(why.find("no socket of that name"), std::string::npos) << why;
  EXPECT_EQ(expand_inherited("127.0.0.1:80", why), (std::vector<std::string>{"127.0.0.1:80"}));
}

TEST_F(SocketActivation, SystemdWithoutSocketsSaysSo) {
  std::string why;
  EXPECT_TRUE(expand_inherited("systemd", why).empty());
  EXPECT_NE(why.find("LISTEN_FDS"), std::string::npos) << why;
}

}  // namespace
