// One burst of concurrent requests, for bench/e2e/single_flight.sh: CLIENTS
// connections are opened first (and given time to be accepted), then one GET
// is written on each, back to back, while a second thread reads the answers;
// each request's latency is taken from its own write to the end of its
// answer. So the figure is the server's (and its waiting), not connection
// setup's, which a tool like ab counts in.
//
//   burst_load PORT TARGET CLIENTS   (127.0.0.1 only; a writer and a reader thread, epoll)
//
// Prints one line: "burst-result clients=N ok=N failed=N send_spread_ms=X
// p50_ms=X p99_ms=X max_ms=X" (ok: a complete 200 answer).

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

namespace {

using clock_type = std::chrono::steady_clock;

struct client {
  int fd = -1;
  std::string in;
  std::atomic<clock_type::rep> sent{0};  // written by the writer before its send()
  double ms = -1;                        // latency once answered
  bool ok = false;
};

int connect_to(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<std::uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (fd < 0 || ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    std::perror("connect");
    std::exit(1);
  }
  const int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

// Whether `in` holds a whole answer (head and Content-Length body); sets `ok` to a 200.
bool complete(const std::string& in, bool& ok) {
  const std::size_t head_end = in.find("\r\n\r\n");
  if (head_end == std::string::npos) return false;
  std::string head = in.substr(0, head_end);
  std::transform(head.begin(), head.end(), head.begin(), [](unsigned char c) { return std::tolower(c); });
  const std::size_t at = head.find("\r\ncontent-length:");
  const std::size_t length = at == std::string::npos ? 0 : std::strtoull(head.c_str() + at + 17, nullptr, 10);
  if (in.size() < head_end + 4 + length) return false;
  ok = in.starts_with("HTTP/1.1 200");
  return true;
}

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const auto i = static_cast<std::size_t>(p / 100.0 * static_cast<double>(v.size() - 1) + 0.5);
  return v[std::min(i, v.size() - 1)];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: burst_load PORT TARGET CLIENTS\n");
    return 2;
  }
  const int port = std::atoi(argv[1]);
  const std::string request = std::string("GET ") + argv[2] + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
  const int count = std::atoi(argv[3]);
  std::vector<client> clients(static_cast<std::size_t>(count));
  const int ep = ::epoll_create1(0);
  for (std::size_t i = 0; i < clients.size(); ++i) {
    clients[i].fd = connect_to(port);
    epoll_event e{};
    e.events = EPOLLIN;
    e.data.u64 = i;
    ::epoll_ctl(ep, EPOLL_CTL_ADD, clients[i].fd, &e);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // every connection accepted
  std::thread writer([&clients, &request] {
    for (client& c : clients) {
      c.sent = clock_type::now().time_since_epoch().count();
      (void)::send(c.fd, request.data(), request.size(), MSG_NOSIGNAL);  // a short write shows as a failure
    }
  });
  int left = count;
  const clock_type::time_point deadline = clock_type::now() + std::chrono::seconds(30);
  std::vector<epoll_event> ready(256);
  char buffer[16384];
  while (left > 0 && clock_type::now() < deadline) {
    const int n = ::epoll_wait(ep, ready.data(), static_cast<int>(ready.size()), 1000);
    const clock_type::time_point now = clock_type::now();
    for (int k = 0; k < n; ++k) {
      client& c = clients[ready[static_cast<std::size_t>(k)].data.u64];
      const ssize_t got = ::recv(c.fd, buffer, sizeof buffer, 0);
      if (got > 0) c.in.append(buffer, static_cast<std::size_t>(got));
      bool ok = false;
      if (got <= 0 || complete(c.in, ok)) {
        c.ms = std::chrono::duration<double, std::milli>(now.time_since_epoch() - clock_type::duration(c.sent)).count();
        c.ok = got > 0 && ok;
        ::epoll_ctl(ep, EPOLL_CTL_DEL, c.fd, nullptr);
        --left;
      }
    }
  }
  writer.join();
  const double spread_ms =
      std::chrono::duration<double, std::milli>(clock_type::duration(clients.back().sent - clients.front().sent))
          .count();
  std::vector<double> latencies;
  int ok = 0;
  for (const client& c : clients) {
    if (c.ok) {
      ++ok;
      latencies.push_back(c.ms);
    }
    ::close(c.fd);
  }
  std::printf("burst-result clients=%d ok=%d failed=%d send_spread_ms=%.1f p50_ms=%.1f p99_ms=%.1f max_ms=%.1f\n",
              count, ok, count - ok, spread_ms, percentile(latencies, 50), percentile(latencies, 99),
              percentile(latencies, 100));
  return ok == count ? 0 : 1;
}
