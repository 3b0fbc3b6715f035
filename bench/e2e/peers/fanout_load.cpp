// fanout_load: the load client of bench/e2e/events.sh. One publisher, many
// subscribers of one topic, over plain Asio; the same client for stet and for
// nginx + nchan, for server-sent events and for WebSocket subscribers.
//
//   fanout_load SUB_PORT SUB_PATH sse|ws SUBSCRIBERS PUB_PORT PUB_PATH MESSAGES WINDOW RATE PIDS
//
// SUBSCRIBERS connections GET SUB_PATH (an event stream, or a WebSocket
// upgrade; at most 256 connecting at once, so the server's listen backlog
// never overflows into SYN retries) and only read. Once every one has its answer's head (and 0.5 s
// more, for the subscriptions to settle), one keep-alive connection POSTs
// MESSAGES bodies of 32 bytes to PUB_PATH, each `#e#<steady ns>#` padded: at
// most WINDOW messages ahead of the slowest delivery (fan-out), or, with
// RATE > 0, RATE messages a second (latency). Subscribers find the marker in
// whatever framing carries it, so the client never parses SSE or WebSocket.
//
// Prints one line: delivered, expected, seconds, the CPU seconds the PIDS
// (comma-separated: the server's processes) used meanwhile (/proc/PID/stat
// utime+stime), and the publish-to-delivery latency p50/p99 in µs.

#include <boost/asio.hpp>

#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace net = boost::asio;
using tcp = net::ip::tcp;
using steady = std::chrono::steady_clock;

namespace {

std::uint64_t delivered = 0;
std::size_t heads = 0;
std::function<void()> next_subscriber;  // starts one more, while some are left
std::vector<std::uint32_t> latencies_us;

std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(steady::now().time_since_epoch()).count();
}

double cpu_seconds(const std::vector<int>& pids) {
  double ticks = 0;
  for (const int pid : pids) {
    std::ifstream f("/proc/" + std::to_string(pid) + "/stat");
    std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    std::istringstream rest(text.substr(text.rfind(')') + 2));
    std::string field;
    double utime = 0;
    double stime = 0;
    for (int i = 3; i <= 15 && rest >> field; ++i) {
      if (i == 14) utime = std::stod(field);
      if (i == 15) stime = std::stod(field);
    }
    ticks += utime + stime;
  }
  return ticks / static_cast<double>(sysconf(_SC_CLK_TCK));
}

// Finds `#e#<ns>#` in a byte stream cut anywhere: what may be the start of a
// marker at the end of one read is kept for the next.
class marker_scanner {
 public:
  void feed(const char* data, std::size_t n) {
    carry_.append(data, n);
    std::size_t at = 0;
    for (;;) {
      const std::size_t m = carry_.find("#e#", at);
      if (m == std::string::npos) {
        at = carry_.size() > 2 ? carry_.size() - 2 : 0;
        break;
      }
      const std::size_t end = carry_.find('#', m + 3);
      if (end == std::string::npos) {
        at = m;
        break;
      }
      ++delivered;
      const std::int64_t sent = std::atoll(carry_.c_str() + m + 3);
      latencies_us.push_back(static_cast<std::uint32_t>((now_ns() - sent) / 1000));
      at = end + 1;
    }
    carry_.erase(0, at);
  }

 private:
  std::string carry_;
};

class subscriber : public std::enable_shared_from_this<subscriber> {
 public:
  subscriber(net::io_context& io, std::string request) : socket_(io), request_(std::move(request)) {}

  void start(const tcp::endpoint& to) {
    socket_.async_connect(to, [self = shared_from_this()](boost::system::error_code ec) {
      if (ec) return std::fprintf(stderr, "connect: %s\n", ec.message().c_str()), void();
      net::async_write(self->socket_, net::buffer(self->request_), [self](boost::system::error_code e, std::size_t) {
        if (!e) self->read();
      });
    });
  }

 private:
  void read() {
    socket_.async_read_some(net::buffer(buffer_),
                            [self = shared_from_this()](boost::system::error_code ec, std::size_t n) {
                              if (ec) return;
                              const char* data = self->buffer_.data();
                              if (!self->head_done_) {
                                self->head_.append(data, n);
                                const std::size_t end = self->head_.find("\r\n\r\n");
                                if (end == std::string::npos) return self->read();
                                self->head_done_ = true;
                                ++heads;
                                if (next_subscriber) next_subscriber();
                                const std::string body = self->head_.substr(end + 4);
                                self->scanner_.feed(body.data(), body.size());
                              } else {
                                self->scanner_.feed(data, n);
                              }
                              self->read();
                            });
  }

  tcp::socket socket_;
  std::string request_;
  std::string head_;
  bool head_done_ = false;
  marker_scanner scanner_;
  std::array<char, 16384> buffer_{};
};

std::string subscribe_request(const std::string& path, bool websocket) {
  std::string r = "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n";
  if (websocket) {
    r += "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
         "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n";
  } else {
    r += "Accept: text/event-stream\r\n\r\n";
  }
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 11) {
    std::fprintf(
        stderr,
        "usage: fanout_load SUB_PORT SUB_PATH sse|ws SUBSCRIBERS PUB_PORT PUB_PATH MESSAGES WINDOW RATE PIDS\n");
    return 2;
  }
  const auto sub_port = static_cast<unsigned short>(std::atoi(argv[1]));
  const std::string sub_path = argv[2];
  const bool websocket = std::string(argv[3]) == "ws";
  const std::size_t subscribers = std::strtoull(argv[4], nullptr, 10);
  const auto pub_port = static_cast<unsigned short>(std::atoi(argv[5]));
  const std::string pub_path = argv[6];
  const std::uint64_t messages = std::strtoull(argv[7], nullptr, 10);
  const std::uint64_t window = std::strtoull(argv[8], nullptr, 10);
  const double rate = std::atof(argv[9]);
  std::vector<int> pids;
  std::istringstream list(argv[10]);
  for (std::string pid; std::getline(list, pid, ',');) pids.push_back(std::atoi(pid.c_str()));

  net::io_context io(1);
  const tcp::endpoint sub_to(net::ip::make_address("127.0.0.1"), sub_port);
  const std::string request = subscribe_request(sub_path, websocket);
  std::size_t started = 0;
  next_subscriber = [&] {
    if (started == subscribers) return;
    ++started;
    std::make_shared<subscriber>(io, request)->start(sub_to);
  };
  for (std::size_t i = 0; i < 256; ++i) next_subscriber();
  const auto setup_deadline = steady::now() + std::chrono::seconds(60);
  while (heads < subscribers && steady::now() < setup_deadline) io.run_for(std::chrono::milliseconds(10));
  if (heads < subscribers) {
    std::fprintf(stderr, "fanout_load: %zu of %zu subscribers answered\n", heads, subscribers);
    return 1;
  }
  io.run_for(std::chrono::milliseconds(500));
  delivered = 0;
  latencies_us.clear();

  tcp::socket publisher(io);
  publisher.connect(tcp::endpoint(net::ip::make_address("127.0.0.1"), pub_port));
  std::array<char, 65536> sink{};
  std::function<void()> drain = [&] {
    publisher.async_read_some(net::buffer(sink), [&](boost::system::error_code ec, std::size_t) {
      if (!ec) drain();
    });
  };
  drain();

  const double cpu_before = cpu_seconds(pids);
  const auto began = steady::now();
  const auto deadline = began + std::chrono::seconds(120);
  std::uint64_t published = 0;
  std::string post;
  while (steady::now() < deadline && delivered < messages * subscribers) {
    const bool room =
        rate > 0
            ? published < messages && std::chrono::duration<double>(steady::now() - began).count() * rate >= published
            : published < messages && delivered + window * subscribers >= (published + 1) * subscribers;
    if (room) {
      std::string body = "#e#" + std::to_string(now_ns()) + "#";
      body.resize(32, 'p');
      post = "POST " + pub_path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 32\r\n\r\n" + body;
      net::write(publisher, net::buffer(post));
      ++published;
    }
    io.run_for(std::chrono::microseconds(room ? 0 : 200));
    io.poll();
  }
  const double seconds = std::chrono::duration<double>(steady::now() - began).count();
  const double cpu = cpu_seconds(pids) - cpu_before;
  std::sort(latencies_us.begin(), latencies_us.end());
  const auto at = [&](double q) {
    return latencies_us.empty() ? 0u : latencies_us[static_cast<std::size_t>(q * (latencies_us.size() - 1))];
  };
  std::printf("delivered %llu expected %llu seconds %.3f cpu %.3f p50_us %u p99_us %u\n",
              static_cast<unsigned long long>(delivered), static_cast<unsigned long long>(messages * subscribers),
              seconds, cpu, at(0.5), at(0.99));
  return delivered == messages * subscribers ? 0 : 1;
}
