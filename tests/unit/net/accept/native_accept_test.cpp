// The listener's accept4 on Asio's reactor: what the kernel gives an accepted
// socket (non-blocking, close-on-exec, TCP_NODELAY and TCP_INQ copied from the
// listening socket: the per-connection system calls it saves rest on this),
// how a socket is handed to Asio (assign_accepted), and how the operation ends.

#include "net/accept/native_accept.hpp"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#if STET_SOCKET_READ_ON_REACTOR

namespace {

using stet::detail::native_accept;
using stet::detail::tcp;
namespace asio = stet::detail::asio;

int option(int fd, int level, int name) {
  int value = -1;
  socklen_t length = sizeof value;
  if (::getsockopt(fd, level, name, &value, &length) != 0) return -1;
  return value;
}

struct accepted {
  boost::system::error_code ec;
  std::vector<int> fds;
  int calls = 0;
};

void record(void* self, const boost::system::error_code& ec, int fd, const sockaddr_storage& /*peer*/) {
  auto& a = *static_cast<accepted*>(self);
  ++a.calls;
  a.ec = ec;
  if (fd >= 0) a.fds.push_back(fd);
}

class NativeAccept : public ::testing::Test {
 protected:
  void SetUp() override {
    tcp::acceptor acceptor(io_, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
    const int on = 1;
    ASSERT_EQ(::setsockopt(acceptor.native_handle(), IPPROTO_TCP, TCP_NODELAY, &on, sizeof on), 0);
    ASSERT_EQ(::setsockopt(acceptor.native_handle(), IPPROTO_TCP, TCP_INQ, &on, sizeof on), 0);
    at_ = acceptor.local_endpoint();
    listening_.assign(tcp::v4(), acceptor.release());
    listening_.non_blocking(true);
  }
  void accept_one() { native_accept::start(listening_, op_); }
  template <class Done>
  bool run_until(Done done) {
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(2);
    while (!done() && std::chrono::steady_clock::now() < give_up) {
      io_.restart();
      io_.run_for(std::chrono::milliseconds(10));
    }
    return done();
  }

  asio::io_context io_;
  tcp::socket listening_{io_};
  tcp::endpoint at_;
  accepted got_;
  std::shared_ptr<native_accept> op_ = std::make_shared<native_accept>(&got_, &record);
};

TEST_F(NativeAccept, AcceptedSocketIsNonBlockingCloseOnExecAndInheritsNodelayAndInq) {
  accept_one();
  tcp::socket client(io_);
  client.connect(at_);
  ASSERT_TRUE(run_until([&] { return got_.calls == 1; }));
  ASSERT_FALSE(got_.ec) << got_.ec.message();
  ASSERT_EQ(got_.fds.size(), 1u);
  const int fd = got_.fds.front();
  EXPECT_NE(::fcntl(fd, F_GETFL) & O_NONBLOCK, 0);
  EXPECT_NE(::fcntl(fd, F_GETFD) & FD_CLOEXEC, 0);
  // Copied from the listening socket by the kernel: without these the listener
  // would have to set them on every connection.
  EXPECT_EQ(option(fd, IPPROTO_TCP, TCP_NODELAY), 1);
  EXPECT_EQ(option(fd, IPPROTO_TCP, TCP_INQ), 1);
  ::close(fd);
}

TEST_F(NativeAccept, AnAssignedSocketIsNonBlockingForAsioAndItsNumberIsReusableAfterClose) {
  tcp::socket client1(io_);
  tcp::socket client2(io_);
  client1.open(tcp::v4());  // both descriptors taken now, so the accepted ones can share a number
  client2.open(tcp::v4());
  int first_fd = -1;
  for (tcp::socket* client : {&client1, &client2}) {
    const int before = got_.calls;
    accept_one();
    client->connect(at_);
    ASSERT_TRUE(run_until([&] { return got_.calls == before + 1; }));
    ASSERT_FALSE(got_.ec);
    const int fd = got_.fds.back();
    tcp::socket s(io_);
    boost::system::error_code ec;
    stet::detail::assign_accepted(s, tcp::v4(), fd, ec);
    // Registered again under the number the first socket had: a registration
    // left behind by the first close would make this fail (EEXIST).
    ASSERT_FALSE(ec) << ec.message();
    EXPECT_TRUE(s.non_blocking());
    if (first_fd < 0)
      first_fd = fd;
    else
      EXPECT_EQ(fd, first_fd);
    asio::write(*client, asio::buffer(std::string("ping")));
    char into[4];
    std::size_t n = 0;
    ASSERT_TRUE(run_until([&] {
      n += s.read_some(asio::buffer(into + n, sizeof into - n), ec);
      return n == sizeof into;
    }));
    EXPECT_EQ(std::string(into, sizeof into), "ping");
    s.close();
  }
}

TEST_F(NativeAccept, ClosingTheListeningSocketEndsTheAcceptWithOperationAborted) {
  accept_one();
  io_.poll();
  EXPECT_EQ(got_.calls, 0);  // nothing to accept: it waits
  listening_.close();
  ASSERT_TRUE(run_until([&] { return got_.calls == 1; }));
  EXPECT_EQ(got_.ec, asio::error::operation_aborted);
  EXPECT_TRUE(got_.fds.empty());
}

}  // namespace

#endif  // STET_SOCKET_READ_ON_REACTOR
