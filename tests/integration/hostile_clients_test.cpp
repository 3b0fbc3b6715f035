// Hostile clients cost only their own connections, and what the server holds
// for them stays bounded: slowloris heads, readers that never read, more
// connections than allowed, and a process out of descriptors. Latencies are
// measured and printed for docs/reliability.md, never asserted.

#include "support/expectations.hpp"
#include "support/fd_count.hpp"
#include "support/http_client.hpp"
#include "support/test_routes.hpp"
#include "support/test_server.hpp"

#include <poll.h>
#include <sys/socket.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

// Present only when UBSan's vptr check is linked in (see OutOfDescriptors...).
extern "C" void __ubsan_handle_dynamic_type_cache_miss(void*, void*, void*) __attribute__((weak));

namespace {

using namespace std::chrono_literals;
using namespace stet::test;
using clock_type = std::chrono::steady_clock;

// ------------------------------------------------------------- latencies --

struct latency_summary {
  std::size_t count = 0;
  double p50_us = 0;
  double p99_us = 0;
  double max_us = 0;
};

latency_summary summarize(std::vector<clock_type::duration> samples) {
  latency_summary s;
  s.count = samples.size();
  if (samples.empty()) return s;
  std::sort(samples.begin(), samples.end());
  const auto us = [](clock_type::duration d) { return std::chrono::duration<double, std::micro>(d).count(); };
  s.p50_us = us(samples[samples.size() / 2]);
  s.p99_us = us(samples[std::min(samples.size() - 1, samples.size() * 99 / 100)]);
  s.max_us = us(samples.back());
  return s;
}

void report(const char* phase, const latency_summary& s) {
  std::printf("[ slowloris ] normal client %s: %zu requests, p50 %.0f us, p99 %.0f us, max %.0f us\n", phase, s.count,
              s.p50_us, s.p99_us, s.max_us);
  ::testing::Test::RecordProperty(std::string(phase) + "_p50_us", static_cast<int>(s.p50_us));
  ::testing::Test::RecordProperty(std::string(phase) + "_p99_us", static_cast<int>(s.p99_us));
}

/// A GET /plaintext on a fresh connection, as a browser's first request would
/// be; its latency (connect included), or nullopt when it was not answered right.
std::optional<clock_type::duration> timed_plaintext(std::uint16_t port) {
  const auto start = clock_type::now();
  raw_client client(port);
  const auto r = client.request("GET", "/plaintext");
  if (!r || r->status != 200 || r->body != hello_body) return std::nullopt;
  return clock_type::now() - start;
}

// ------------------------------------------------------------- slowloris --

/// `count` connections, each sending one byte of a head that never ends every
/// `interval`, on a thread of their own, until the server answers or closes
/// each of them or `give_up` passes.
class slowloris {
 public:
  slowloris(std::uint16_t port, std::size_t count, std::chrono::milliseconds interval,
            std::chrono::milliseconds give_up)
      : interval_(interval), deadline_(clock_type::now() + give_up) {
    victims_.reserve(count);
    for (std::size_t i = 0; i < count; ++i) {
      victim v;
      v.client = std::make_unique<raw_client>(port);
      v.connected_at = clock_type::now();
      v.next_send = v.connected_at;
      victims_.push_back(std::move(v));
    }
    thread_ = std::thread([this] { run(); });
  }
  ~slowloris() { wait(); }
  slowloris(const slowloris&) = delete;
  slowloris& operator=(const slowloris&) = delete;

  bool running() const noexcept { return running_.load(); }
  /// Connections closed so far (safe to read while the attack runs).
  std::size_t closed_so_far() const noexcept { return closed_so_far_.load(); }
  void wait() {
    if (thread_.joinable()) thread_.join();
  }

  std::size_t connected() const {
    return static_cast<std::size_t>(
        std::count_if(victims_.begin(), victims_.end(), [](const victim& v) { return v.client->connected(); }));
  }
  /// Connections the server closed after answering exactly one 408 (call after wait()).
  std::size_t closed_with_408() const {
    return static_cast<std::size_t>(std::count_if(victims_.begin(), victims_.end(), [](const victim& v) {
      const auto r = parse_response(v.received);
      return v.closed && r && r->status == 408 && r->header("connection") == "close";
    }));
  }
  /// The most bytes of head any one slow connection managed to send.
  std::size_t most_bytes_sent() const {
    std::size_t most = 0;
    for (const victim& v : victims_) most = std::max(most, v.sent);
    return most;
  }
  /// Shortest and longest time from connect to close, in seconds.
  std::pair<double, double> lifetimes() const {
    double lo = 1e9;
    double hi = 0;
    for (const victim& v : victims_) {
      const double s = std::chrono::duration<double>(v.lifetime).count();
      lo = std::min(lo, s);
      hi = std::max(hi, s);
    }
    return {lo, hi};
  }

 private:
  struct victim {
    std::unique_ptr<raw_client> client;
    clock_type::time_point connected_at;
    clock_type::time_point next_send;
    std::size_t sent = 0;
    std::string received;
    bool closed = false;
    clock_type::duration lifetime{};
  };

  // A head that never ends: no empty line ever comes.
  static const std::string& head() {
    static const std::string h = "GET /plaintext HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slowloris: " + std::string(4096, 's');
    return h;
  }

  void run() {
    std::vector<pollfd> polled;
    std::vector<victim*> owners;
    for (;;) {
      const auto now = clock_type::now();
      polled.clear();
      owners.clear();
      for (victim& v : victims_) {
        if (v.closed || !v.client->connected()) continue;
        // Never send once the server has spoken: its answer must not be lost to a reset.
        if (v.received.empty() && now >= v.next_send && v.sent < head().size()) {
          v.client->send(std::string_view(head()).substr(v.sent++, 1));
          v.next_send += interval_;
        }
        polled.push_back(pollfd{v.client->fd(), POLLIN, 0});
        owners.push_back(&v);
      }
      if (polled.empty() || now >= deadline_) break;
      ::poll(polled.data(), polled.size(), 20);
      for (std::size_t i = 0; i < polled.size(); ++i) {
        if (polled[i].revents != 0) drain(*owners[i]);
      }
    }
    running_ = false;
  }

  void drain(victim& v) {
    char chunk[4096];
    for (;;) {
      const ssize_t n = ::recv(v.client->fd(), chunk, sizeof chunk, MSG_DONTWAIT);
      if (n > 0) {
        v.received.append(chunk, static_cast<std::size_t>(n));
        continue;
      }
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
      v.closed = true;  // EOF or reset
      v.lifetime = clock_type::now() - v.connected_at;
      ++closed_so_far_;
      return;
    }
  }

  std::chrono::milliseconds interval_;
  clock_type::time_point deadline_;
  std::vector<victim> victims_;
  std::atomic<bool> running_{true};
  std::atomic<std::size_t> closed_so_far_{0};
  std::thread thread_;
};

TEST(HostileClients, SlowlorisDoesNotStarveANormalClientAndEachSlowHeadGets408) {
  constexpr std::size_t slow_count = 500;
  // Each slow connection costs two descriptors here: the client's and the server's.
  scoped_fd_limit limit(std::max<rlim_t>(scoped_fd_limit::current(), 2 * slow_count + 512));
  if (scoped_fd_limit::current() < 2 * slow_count + 256) GTEST_SKIP() << "RLIMIT_NOFILE too low for 500 connections";

  test_app app;
  stet::server_options options = test_options();
  options.header_timeout = 2s;
  running_server server(app.routes(), options);

  // Each timed request is a fresh connection that leaves a TIME_WAIT behind
  // for a minute: paced and bounded, so the suite does not run the machine
  // out of ephemeral ports for the tests after this one.
  std::vector<clock_type::duration> before;
  for (int i = 0; i < 500; ++i) {
    const auto t = timed_plaintext(server.port());
    ASSERT_TRUE(t) << "request " << i << " before the attack";
    before.push_back(*t);
  }

  // One byte per second each, as in the classic attack; the head deadline
  // (2 s from the first byte, never extended) must end every one of them.
  slowloris attack(server.port(), slow_count, 1000ms, options.header_timeout + 10s);
  ASSERT_EQ(attack.connected(), slow_count);
  // Split at the first close: all 500 open and trickling, then timing out.
  std::vector<clock_type::duration> all_open;
  std::vector<clock_type::duration> timing_out;
  std::size_t failed = 0;
  while (attack.running()) {
    const bool none_closed = attack.closed_so_far() == 0;
    const auto t = timed_plaintext(server.port());
    if (!t) {
      ++failed;
    } else {
      (none_closed ? all_open : timing_out).push_back(*t);
    }
    std::this_thread::sleep_for(5ms);
  }
  attack.wait();

  report("before", summarize(before));
  report("all_open", summarize(all_open));
  report("timing_out", summarize(timing_out));
  const auto [first_closed, last_closed] = attack.lifetimes();
  std::printf(
      "[ slowloris ] %zu slow connections, 1 byte/s, header_timeout 2 s: %zu closed with 408 after %.2f to %.2f s"
      " (at most %zu bytes sent)\n",
      slow_count, attack.closed_with_408(), first_closed, last_closed, attack.most_bytes_sent());

  EXPECT_EQ(failed, 0u) << "normal requests not answered during the attack";
  EXPECT_GT(all_open.size(), 0u);
  EXPECT_EQ(attack.closed_with_408(), slow_count) << "slow connections not ended by the header timeout";
  EXPECT_EQ(app.handled(), before.size() + all_open.size() + timing_out.size()) << "a slow head reached a handler";
  EXPECT_TRUE(eventually([&] { return server.get().open_connections() == 0; }, 5s));
}

// ----------------------------------------------------------- slow readers --

/// The most a TCP connection over loopback can hold unread: the server's
/// largest send buffer plus the client's receive buffer (doubled by the
/// kernel for bookkeeping). Anything a server holds beyond this is its own.
std::size_t socket_buffers_max(int receive_buffer) {
  std::size_t min = 0;
  std::size_t def = 0;
  std::size_t max = 4 * 1024 * 1024;
  std::ifstream("/proc/sys/net/ipv4/tcp_wmem") >> min >> def >> max;
  return max + 2 * static_cast<std::size_t>(receive_buffer);
}

stet::server_options quick_write_timeout() {
  stet::server_options o = test_options();
  o.write_timeout = 500ms;
  return o;
}

TEST(HostileClients, ReaderThatNeverReadsPipelinedLargeResponsesIsDroppedWithABoundedBacklog) {
  test_app app;
  const stet::server_options options = quick_write_timeout();
  running_server server(app.routes(), options);
  constexpr int receive_buffer = 4096;
  constexpr std::size_t response_bytes = 1024 * 1024;
  constexpr std::size_t requests = 64;  // 64 MiB of answers asked for at once
  raw_client client(server.port(), "127.0.0.1", receive_buffer);
  std::string batch;
  for (std::size_t i = 0; i < requests; ++i) batch += get_request("/bytes?" + std::to_string(response_bytes));
  ASSERT_TRUE(client.send(batch));
  ASSERT_TRUE(eventually([&] { return app.handled() > 0; }));

  // The server answers only while its pending output is under
  // max_pipeline_output_bytes; so the responses it has built are what the
  // socket buffers took, one over the cap, and the one being written.
  EXPECT_TRUE(eventually([&] { return server.get().open_connections() == 0; }, 10s)) << "the stalled reader was kept";
  const std::size_t bound =
      (socket_buffers_max(receive_buffer) + options.max_pipeline_output_bytes) / response_bytes + 2;
  std::printf("[ slow reader ] %zu of %zu pipelined 1 MiB responses built before the write timeout (bound %zu)\n",
              app.handled(), requests, bound);
  EXPECT_LE(app.handled(), bound);
  EXPECT_LT(app.handled(), requests);
  expect_still_serving(server.port());
}

// Small answers are written from the worker thread itself, without a round
// through the event loop; a socket that is full must make that write give way,
// not wait. One worker, so a wait would stall every other client too.
TEST(HostileClients, ReaderThatNeverReadsPipelinedSmallResponsesDoesNotStallTheWorker) {
  test_app app;
  stet::server_options options = quick_write_timeout();
  options.threads = 1;
  running_server server(app.routes(), options);
  std::string batch;
  for (int i = 0; i < 1000; ++i) batch += get_request("/plaintext");
  auto hostile = std::make_unique<raw_client>(server.port(), "127.0.0.1", 4096);
  std::thread sender([&client = *hostile, &batch] {
    // Far more answers than the socket buffers hold; stops when the server drops it.
    for (int i = 0; i < 400 && client.send(batch); ++i) {
    }
  });
  // Until the server answers no more: its socket is full, or it dropped the reader.
  ASSERT_TRUE(eventually([&] { return app.handled() > 0; }));
  std::size_t before = 0;
  ASSERT_TRUE(eventually(
      [&] {
        const std::size_t now = app.handled();
        const bool settled = now == before;
        before = now;
        std::this_thread::sleep_for(200ms);
        return settled;
      },
      20s));

  std::printf("[ slow reader ] %zu small pipelined answers built before the server stopped answering\n", app.handled());
  const auto served = timed_plaintext(server.port());
  EXPECT_TRUE(served.has_value()) << "a client that does not read stalled the worker";
  EXPECT_TRUE(eventually([&] { return server.get().open_connections() == 0; }, 10s)) << "the stalled reader was kept";
  ::shutdown(hostile->fd(), SHUT_RDWR);  // ends the sender's last send, if the server did not
  sender.join();
  expect_still_serving(server.port());
}

TEST(HostileClients, ReaderThatNeverReadsAnEndlessStreamStopsTheProducer) {
  std::atomic<std::size_t> pieces{0};
  stet::router routes;
  routes.get("/endless", [&pieces](stet::request&) {
    stet::response r;
    r.set_stream([&pieces](stet::stream_writer& out) {
      ++pieces;
      out.write(pattern_bytes(64 * 1024));
      return true;  // never done: only the client can end it
    });
    return r;
  });
  routes.get("/plaintext", [](stet::request&) { return stet::response::text(hello_body); });
  running_server server(std::move(routes), quick_write_timeout());
  constexpr int receive_buffer = 4096;
  {
    raw_client client(server.port(), "127.0.0.1", receive_buffer);
    ASSERT_TRUE(client.send(get_request("/endless")));
    EXPECT_TRUE(eventually([&] { return pieces.load() > 0; }));
    EXPECT_TRUE(eventually([&] { return server.get().open_connections() == 0; }, 10s)) << "the stalled reader was kept";
  }
  const std::size_t produced = pieces.load();
  const std::size_t bound = socket_buffers_max(receive_buffer) / (64 * 1024) + 2;
  std::printf("[ slow reader ] endless stream: %zu pieces of 64 KiB produced before the write timeout (bound %zu)\n",
              produced, bound);
  EXPECT_LE(produced, bound);
  std::this_thread::sleep_for(100ms);
  EXPECT_EQ(pieces.load(), produced) << "the producer ran on after the connection closed";
  expect_still_serving(server.port());
}

// ------------------------------------------------------- connection limit --

TEST(HostileClients, ConnectionsBeyondTheLimitQueueAndLeakNoDescriptor) {
  test_app app;
  stet::server_options options = test_options();
  options.max_connections = 8;
  running_server server(app.routes(), options);
  ASSERT_TRUE(timed_plaintext(server.port()));  // the listener and workers are fully set up
  ASSERT_TRUE(eventually([&] { return server.get().open_connections() == 0; }));
  const std::size_t fds_before = open_fds();

  constexpr std::size_t clients = 40;
  std::vector<std::unique_ptr<raw_client>> waiting;
  for (std::size_t i = 0; i < clients; ++i) {
    waiting.push_back(std::make_unique<raw_client>(server.port()));
    ASSERT_TRUE(waiting.back()->send(get_request("/query?" + std::to_string(i))));
  }
  // The server fills up to the limit (and one more, for which it looks for a
  // connection to spare: these all sent a request, so there is none until one
  // is answered), then serves the others as earlier ones leave or, answered
  // and idle, make room.
  EXPECT_TRUE(eventually([&] { return accepted_sockets(server.port()) >= options.max_connections; }));
  std::size_t answered = 0;
  std::size_t most_held = 0;
  const auto give_up = clock_type::now() + 20s;
  while (answered < clients && clock_type::now() < give_up) {
    for (std::size_t i = 0; i < clients; ++i) {
      most_held = std::max(most_held, accepted_sockets(server.port()));
      if (!waiting[i]) continue;
      const auto r = waiting[i]->read_response(false, 5ms);
      if (!r) continue;
      EXPECT_EQ(r->body, std::to_string(i));
      waiting[i].reset();
      ++answered;
    }
  }
  EXPECT_EQ(answered, clients);
  EXPECT_GE(most_held, options.max_connections);
  EXPECT_LE(most_held, options.max_connections + 1);
  EXPECT_TRUE(eventually([&] { return server.get().open_connections() == 0; }));
  EXPECT_TRUE(eventually([&] { return open_fds() == fds_before; }))
      << open_fds() << " fds, " << fds_before << " before";
}

TEST(HostileClients, OutOfDescriptorsTheServerWaitsAndRecovers) {
  if (&__ubsan_handle_dynamic_type_cache_miss != nullptr) {
    // The first vptr check of a type probes memory through a pipe(2); with no
    // descriptor left that fails and UBSan reports a false "invalid vptr".
    GTEST_SKIP() << "UBSan's vptr check needs free descriptors, which this test takes away";
  }
  test_app app;
  running_server server(app.routes());
  ASSERT_TRUE(timed_plaintext(server.port()));
  ASSERT_TRUE(eventually([&] { return server.get().open_connections() == 0; }));
  const std::size_t fds_before = open_fds();
  std::optional<raw_client> second;
  {
    // Room for exactly three more: a client, the server's side of it, and a
    // second client whose connection the server then cannot accept (EMFILE).
    scoped_fd_limit limit(fd_limit_leaving(3));
    auto first = std::make_unique<raw_client>(server.port());
    ASSERT_TRUE(first->request("GET", "/plaintext"));
    second.emplace(server.port());
    ASSERT_TRUE(second->connected());
    ASSERT_TRUE(second->send(get_request("/query?second")));
    EXPECT_TRUE(second->quiet_for(200ms)) << "served although the process was out of descriptors";
    first.reset();  // frees two descriptors once the server sees the close
    const auto r = second->read_response(false, 5s);
    ASSERT_TRUE(r) << "the server did not resume accepting";
    EXPECT_EQ(r->body, "second");
  }
  second.reset();
  EXPECT_TRUE(eventually([&] { return server.get().open_connections() == 0; }));
  EXPECT_TRUE(eventually([&] { return open_fds() == fds_before; }))
      << open_fds() << " fds, " << fds_before << " before";
  expect_still_serving(server.port());
}

}  // namespace
