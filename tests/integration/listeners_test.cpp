// Several listeners per server: TCP on IPv4 and IPv6, unix-domain sockets
// (mode, stale files, removal at stop), and start errors that say which
// address failed and why.

#include <stet/stet.hpp>

#include "support/http_client.hpp"
#include "support/test_server.hpp"

#include <gtest/gtest.h>

#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

namespace {

using stet::test::raw_client;
using stet::test::test_options;

stet::router routes() {
  stet::router r;
  r.get("/peer", [](stet::request& req) {
    const stet::endpoint& peer = req.remote_endpoint();
    return stet::response::text(peer.kind() == stet::endpoint::family::unix_socket ? "unix" : peer.address_string());
  });
  return r;
}

// A fresh directory for socket files, removed with the test.
class scratch_dir {
 public:
  scratch_dir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "stet-listen-XXXXXX").string();
    path_ = ::mkdtemp(pattern.data());
  }
  ~scratch_dir() { std::filesystem::remove_all(path_); }
  std::string file(const char* name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

// One request to `at`, answered with Connection: close.
template <class Address>
std::string get_over(const Address& at, int family, const std::string& target) {
  const int fd = ::socket(family, SOCK_STREAM, 0);
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&at), sizeof at) != 0) {
    ::close(fd);
    return "connect failed";
  }
  const std::string request = "GET " + target + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
  (void)::send(fd, request.data(), request.size(), MSG_NOSIGNAL);
  std::string answer;
  char buffer[4096];
  for (ssize_t n; (n = ::recv(fd, buffer, sizeof buffer, 0)) > 0;) answer.append(buffer, static_cast<std::size_t>(n));
  ::close(fd);
  return answer;
}

std::string get_over_unix(const std::string& path, const std::string& target) {
  sockaddr_un at{};
  at.sun_family = AF_UNIX;
  path.copy(at.sun_path, sizeof at.sun_path - 1);
  return get_over(at, AF_UNIX, target);
}

std::string get_over_ipv6_loopback(std::uint16_t port, const std::string& target) {
  sockaddr_in6 at{};
  at.sin6_family = AF_INET6;
  at.sin6_port = htons(port);
  at.sin6_addr = in6addr_loopback;
  return get_over(at, AF_INET6, target);
}

std::string body_of(const std::string& answer) { return answer.substr(answer.find("\r\n\r\n") + 4); }

TEST(Listeners, TcpAndUnixListenersServeTheSameRoutes) {
  scratch_dir dir;
  const std::string sock = dir.file("stet.sock");
  stet::server_options o = test_options();
  o.listeners = {{"127.0.0.1:0"}, {"unix:" + sock}};
  stet::test::running_server server(routes(), o);
  EXPECT_EQ(server.get().port(1), 0);  // a unix socket has no port
  ASSERT_NE(server.port(), 0);

  raw_client tcp(server.port());
  const auto r = tcp.request("GET", "/peer");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->body, "127.0.0.1");
  EXPECT_EQ(body_of(get_over_unix(sock, "/peer")), "unix");
}

TEST(Listeners, AnIpv6LoopbackListenerServes) {
  stet::server_options o = test_options();
  o.listeners = {{"[::1]:0"}};
  stet::server server(routes(), o);
  if (const stet::config_error failed = server.start()) {
    GTEST_SKIP() << "no IPv6 loopback here: " << failed.message();
  }
  EXPECT_EQ(body_of(get_over_ipv6_loopback(server.port(), "/peer")), "::1");
  server.stop();
  server.wait();
}

// "[::]" is dual-stack (IPV6_V6ONLY off): IPv4 clients arrive on it too, and
// their address is IPv4, not "::ffff:127.0.0.1", so trusted_proxies match it.
TEST(Listeners, TheIpv6WildcardIsDualStack) {
  stet::server_options o = test_options();
  o.listeners = {{"[::]:0"}};
  stet::server server(routes(), o);
  if (const stet::config_error failed = server.start()) {
    GTEST_SKIP() << "no IPv6 here: " << failed.message();
  }
  raw_client v4(server.port());
  const auto r = v4.request("GET", "/peer");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->body, "127.0.0.1");
  EXPECT_EQ(body_of(get_over_ipv6_loopback(server.port(), "/peer")), "::1");
  server.stop();
  server.wait();
}

TEST(Listeners, AUnixSocketGetsItsModeAndIsRemovedAtStop) {
  scratch_dir dir;
  const std::string sock = dir.file("m.sock");
  stet::server_options o = test_options();
  o.listeners = {{"unix:" + sock, 0600}};
  {
    stet::test::running_server server(routes(), o);
    struct stat st {};
    ASSERT_EQ(::stat(sock.c_str(), &st), 0);
    EXPECT_TRUE(S_ISSOCK(st.st_mode));
    EXPECT_EQ(st.st_mode & 0777, 0600u);
  }
  EXPECT_FALSE(std::filesystem::exists(sock));
}

TEST(Listeners, AStaleSocketFileFromACrashedRunIsReplaced) {
  scratch_dir dir;
  const std::string sock = dir.file("stale.sock");
  {  // bound, never listened on, closed: the file stays, as after a crash
    const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un at{};
    at.sun_family = AF_UNIX;
    sock.copy(at.sun_path, sizeof at.sun_path - 1);
    ASSERT_EQ(::bind(fd, reinterpret_cast<const sockaddr*>(&at), sizeof at), 0);
    ::close(fd);
  }
  ASSERT_TRUE(std::filesystem::exists(sock));
  stet::server_options o = test_options();
  o.listeners = {{"unix:" + sock}};
  stet::test::running_server server(routes(), o);
  EXPECT_EQ(body_of(get_over_unix(sock, "/peer")), "unix");
}

TEST(Listeners, ASocketAnotherServerListensOnIsNotTakenOver) {
  scratch_dir dir;
  const std::string sock = dir.file("busy.sock");
  stet::server_options o = test_options();
  o.listeners = {{"unix:" + sock}};
  stet::test::running_server first(routes(), o);
  stet::server second(routes(), o);
  const stet::config_error failed = second.start();
  ASSERT_TRUE(failed);
  EXPECT_NE(failed.message().find("another process is listening"), std::string::npos) << failed.message();
  EXPECT_EQ(body_of(get_over_unix(sock, "/peer")), "unix");  // the first still serves
}

TEST(Listeners, ABadAddressIsAStartErrorNamingIt) {
  for (const char* bad : {"127.0.0.1", "1.2.3:80", "127.0.0.1:99999", "[::1]", "::1:80", "localhost:80", "unix:"}) {
    stet::server_options o = test_options();
    o.listeners = {{"127.0.0.1:0"}, {bad}};
    stet::server server(routes(), o);
    const stet::config_error failed = server.start();
    ASSERT_TRUE(failed) << bad;
    EXPECT_EQ(failed.message().rfind(std::string("listen on ") + bad + ": ", 0), 0u) << failed.message();
    EXPECT_EQ(server.port(), 0) << "nothing may stay bound after a failed start";
  }
}

TEST(Listeners, AnAddressInUseIsAStartErrorAndNothingStaysBound) {
  stet::test::running_server first(routes());
  stet::server_options o = test_options();
  o.listeners = {{"127.0.0.1:0"}, {"127.0.0.1:" + std::to_string(first.port())}};
  stet::server second(routes(), o);
  const stet::config_error failed = second.start();
  ASSERT_TRUE(failed);
  EXPECT_EQ(failed.code(), std::errc::address_in_use);
  EXPECT_NE(failed.message().find("127.0.0.1:" + std::to_string(first.port())), std::string::npos);
}

}  // namespace
