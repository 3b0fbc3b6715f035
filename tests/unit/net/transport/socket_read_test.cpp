// socket_read skips Asio's speculative recv only when it cannot succeed: the
// last recv left nothing (no byte, no FIN), the worker has not been back to its
// event loop, and an answer was written since. Every other read is tried at
// once, and a skipped read still completes on the next byte, FIN or close.

#include "net/transport/socket_read.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>

namespace {

using namespace std::chrono_literals;
using stet::detail::socket_read;
using stet::detail::tcp;
namespace asio = stet::detail::asio;

/// One read after another into `received`, the way a connection reads;
/// `next_from_completion` says what the completion does next.
struct reader : std::enable_shared_from_this<reader> {
  explicit reader(tcp::socket& s) : socket(s) {}

  enum class then { stop, read_unanswered, read_answered };

  void start(bool answered) {
    read.start(socket, stet::detail::io_target{this, &reader::on_done, &reader::into}, answered, shared_from_this());
  }
  static std::span<char> into(void* target, bool speculative) noexcept {
    reader& self = *static_cast<reader*>(target);
    if (speculative && self.decline_speculative) return {};
    ++self.buffers_asked;
    return {self.buffer, sizeof self.buffer};
  }
  static void on_done(void* target, const boost::system::error_code& ec, std::size_t n) {
    reader& self = *static_cast<reader*>(target);
    ++self.completions;
    self.last_error = ec;
    if (ec) return;
    self.received.append(self.buffer, n);
    const then next = self.next_from_completion;
    self.next_from_completion = then::stop;
    if (next != then::stop) self.start(next == then::read_answered);
  }

  tcp::socket& socket;
  socket_read read;
  char buffer[64];
  std::string received;
  int completions = 0;
  int buffers_asked = 0;             // the buffer is asked for only when a read is tried
  bool decline_speculative = false;  // as an idle connection does
  boost::system::error_code last_error;
  then next_from_completion = then::stop;
};

class SocketRead : public ::testing::Test {
 protected:
  void SetUp() override {
    tcp::acceptor acceptor(io_, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
    client_.connect(acceptor.local_endpoint());
    acceptor.accept(server_);
    server_.non_blocking(true);
  }

  void client_sends(const std::string& bytes) { asio::write(client_, asio::buffer(bytes)); }
  /// A reader on the server socket whose first read is started (with no
  /// answer before it), and which does `after` from that read's completion.
  std::shared_ptr<reader> first_read(reader::then after = reader::then::stop) {
    auto r = std::make_shared<reader>(server_);
    r->next_from_completion = after;
    r->start(false);
    return r;
  }
  /// Runs the loop until `done` or two seconds pass.
  template <class Done>
  bool run_until(Done done) {
    const auto give_up = std::chrono::steady_clock::now() + 2s;
    while (!done() && std::chrono::steady_clock::now() < give_up) {
      io_.restart();
      io_.run_for(10ms);
    }
    return done();
  }

  asio::io_context io_{1};
  tcp::socket server_{io_};
  tcp::socket client_{io_};
};

TEST_F(SocketRead, AfterAnAnswerWithNothingLeftTheNextReadWaitsWithoutTrying) {
  if (!socket_read::skips_probes) GTEST_SKIP() << "built with plain async_read_some (another Asio)";
  client_sends("one");
  auto r = first_read(reader::then::read_answered);
  ASSERT_TRUE(run_until([&] { return r->completions == 1; }));
  EXPECT_EQ(r->read.probes_skipped(), 1u);
  // The waiting read holds no buffer: it asks for one only when bytes come.
  EXPECT_EQ(r->buffers_asked, 1);
  client_sends("two");
  ASSERT_TRUE(run_until([&] { return r->completions == 2; }));
  EXPECT_EQ(r->buffers_asked, 2);
  EXPECT_EQ(r->received, "onetwo");
  EXPECT_FALSE(r->last_error);
}

// A socket the listener registered in the handler that starts its first read
// (socket_read::assume): that read waits for the first readiness untried,
// whether the bytes were there before it started or come after.
TEST_F(SocketRead, AFreshSocketsFirstReadWaitsForEpollUntriedAndStillGetsItsBytes) {
  if (!socket_read::skips_probes) GTEST_SKIP() << "built with plain async_read_some (another Asio)";
  client_sends("one");  // there already, as a client's request often is
  auto r = std::make_shared<reader>(server_);
  r->read.assume(false, true);
  r->start(false);
  EXPECT_EQ(r->read.probes_skipped(), 1u);
  EXPECT_EQ(r->buffers_asked, 0);  // not tried: no buffer asked for
  ASSERT_TRUE(run_until([&] { return r->completions == 1; }));
  EXPECT_EQ(r->received, "one");
  EXPECT_EQ(r->buffers_asked, 1);
  // Only the first read: the next one (not answered) is tried at once.
  r->start(false);
  EXPECT_EQ(r->buffers_asked, 2);
  client_sends("two");
  ASSERT_TRUE(run_until([&] { return r->completions == 2; }));
  EXPECT_EQ(r->received, "onetwo");
  EXPECT_EQ(r->read.probes_skipped(), 1u);
}

TEST_F(SocketRead, AReaderThatDeclinesASpeculativeTryGetsItsBytesAnyway) {
  auto r = std::make_shared<reader>(server_);
  r->decline_speculative = true;
  r->start(false);  // tried at once: nothing there, and no buffer given up for it
  EXPECT_EQ(r->buffers_asked, 0);
  client_sends("one");
  ASSERT_TRUE(run_until([&] { return r->completions == 1; }));
  EXPECT_EQ(r->received, "one");
  EXPECT_EQ(r->buffers_asked, 1);
  // Bytes already there when a declined try is made: looked at, then read.
  client_sends("two");
  std::this_thread::sleep_for(50ms);
  r->start(false);
  ASSERT_TRUE(run_until([&] { return r->completions == 2; }));
  EXPECT_EQ(r->received, "onetwo");
  // An end of stream behind a declined try is seen at once.
  client_.shutdown(tcp::socket::shutdown_send);
  std::this_thread::sleep_for(50ms);
  r->start(false);
  ASSERT_TRUE(run_until([&] { return r->completions == 3; }));
  EXPECT_EQ(r->last_error, asio::error::eof);
}

TEST_F(SocketRead, ACancelledReadStaysBusyUntilItsCompletionRuns) {
  auto r = first_read();
  io_.restart();
  io_.poll();  // nothing to read: queued
  ASSERT_TRUE(r->read.busy() || !socket_read::skips_probes);
  server_.cancel();
  EXPECT_TRUE(r->read.busy() || !socket_read::skips_probes);  // its aborted completion is queued, not run
  ASSERT_TRUE(run_until([&] { return r->completions == 1; }));
  EXPECT_EQ(r->last_error, asio::error::operation_aborted);
  EXPECT_FALSE(r->read.busy());
}

TEST_F(SocketRead, AFinThatCameWithTheDataIsSeenAtOnce) {
  client_sends("one");
  client_.shutdown(tcp::socket::shutdown_send);
  std::this_thread::sleep_for(50ms);  // data and FIN both in the kernel before the first read
  auto r = first_read(reader::then::read_answered);
  ASSERT_TRUE(run_until([&] { return r->completions == 2; }));
  EXPECT_EQ(r->read.probes_skipped(), 0u);
  EXPECT_EQ(r->received, "one");
  EXPECT_EQ(r->last_error, asio::error::eof);
}

TEST_F(SocketRead, MoreDataLeftIsReadAtOnce) {
  client_sends(std::string(100, 'x'));  // more than the 64-byte buffer
  std::this_thread::sleep_for(50ms);
  auto r = first_read(reader::then::read_answered);
  ASSERT_TRUE(run_until([&] { return r->completions == 2; }));
  EXPECT_EQ(r->read.probes_skipped(), 0u);
  EXPECT_EQ(r->received, std::string(100, 'x'));
}

TEST_F(SocketRead, WithoutAnAnswerSinceTheReadIsTried) {
  // A reset that came with the request is not reported by TCP_INQ; only a
  // write (the answer) would have surfaced it.
  client_sends("one");
  auto r = first_read(reader::then::read_unanswered);
  ASSERT_TRUE(run_until([&] { return r->completions == 1; }));
  EXPECT_EQ(r->read.probes_skipped(), 0u);
}

TEST_F(SocketRead, AfterTheEventLoopRanTheReadIsTried) {
  // An edge may have been consumed meanwhile with no read waiting for it.
  client_sends("one");
  auto r = first_read();
  ASSERT_TRUE(run_until([&] { return r->completions == 1; }));
  client_sends("two");
  std::this_thread::sleep_for(50ms);
  io_.restart();
  io_.poll();  // the edge for "two" arrives with no read queued
  r->start(true);
  ASSERT_TRUE(run_until([&] { return r->completions == 2; }));
  EXPECT_EQ(r->read.probes_skipped(), 0u);
  EXPECT_EQ(r->received, "onetwo");
}

TEST_F(SocketRead, ClosingTheSocketEndsAWaitingReadAndReleasesItsOwner) {
  client_sends("one");
  auto r = first_read(reader::then::read_answered);
  const std::weak_ptr<reader> owner = r;
  ASSERT_TRUE(run_until([&] { return r->completions == 1; }));
  ASSERT_EQ(r->read.probes_skipped(), socket_read::skips_probes ? 1u : 0u);
  r.reset();  // only the queued read holds it now
  ASSERT_FALSE(owner.expired());
  server_.close();
  ASSERT_TRUE(run_until([&] { return owner.expired(); }));
}

TEST(SocketReadLifetime, DestroyingTheIoContextWithAReadQueuedReleasesItsOwner) {
  std::weak_ptr<reader> owner;
  {
    asio::io_context io{1};
    tcp::acceptor acceptor(io, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
    tcp::socket client(io);
    client.connect(acceptor.local_endpoint());
    auto server = std::make_unique<tcp::socket>(io);
    acceptor.accept(*server);
    server->non_blocking(true);
    auto r = std::make_shared<reader>(*server);
    owner = r;
    r->start(false);  // nothing to read: queued
    io.poll();
    r.reset();
    ASSERT_FALSE(owner.expired());
    server.reset();  // its reader is gone before it, as a connection's is
  }
  EXPECT_TRUE(owner.expired());
}

}  // namespace
