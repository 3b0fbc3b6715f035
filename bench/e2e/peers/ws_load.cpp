// ws_load: the WebSocket load client of bench/e2e/websocket.sh. No Debian
// tool pipelines WebSocket messages, so this one does, over plain Asio with
// frames built by hand (one masked frame, prebuilt, sent again and again), so
// that the client costs as little CPU as it can.
//
//   ws_load echo    PORT PATH CONNECTIONS SIZE PIPELINE SECONDS [binary]
//     every connection keeps PIPELINE messages of SIZE bytes in flight and
//     sends one more for every message that comes back.
//   ws_load publish PORT PATH SUBSCRIBERS SIZE PIPELINE SECONDS
//     SUBSCRIBERS connections join PATH (a room that publishes every message
//     to all its members); one more of them keeps PIPELINE messages in
//     flight, and sends one more whenever its own copy comes back.
//
// Text frames unless the last argument is "binary" (a JavaScript peer turns a
// text message into a string and back, a binary one only into a buffer).
// Prints "messages N seconds S" (messages received over all connections).

#include <boost/asio.hpp>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace net = boost::asio;
using tcp = net::ip::tcp;

namespace {

std::uint64_t received = 0;

// One masked frame of `size` bytes, text or binary.
std::string masked_frame(std::size_t size, bool binary) {
  std::string f;
  f += binary ? '\x82' : '\x81';  // text by default: the chat room takes nothing else ('m' is valid UTF-8)
  if (size < 126) {
    f += static_cast<char>(0x80 | size);
  } else if (size < 65536) {
    f += '\xfe';
    f += static_cast<char>(size >> 8);
    f += static_cast<char>(size & 0xff);
  } else {
    f += '\xff';
    for (int i = 7; i >= 0; --i) f += static_cast<char>((static_cast<std::uint64_t>(size) >> (8 * i)) & 0xff);
  }
  f += std::string("\0\0\0\0", 4);  // a zero mask: the payload goes as it is
  f += std::string(size, 'm');
  return f;
}

class client : public std::enable_shared_from_this<client> {
 public:
  client(net::io_context& io, const std::string& frame, std::size_t pipeline, bool sends)
      : socket_(io), frame_(frame), pipeline_(pipeline), sends_(sends) {}

  void start(const tcp::endpoint& at, const std::string& path, std::atomic<int>& ready) {
    socket_.connect(at);
    socket_.set_option(tcp::no_delay(true));
    const std::string req = "GET " + path +
                            " HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                            "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n";
    net::write(socket_, net::buffer(req));
    std::string head;
    char c = 0;
    while (head.size() < 4 || head.compare(head.size() - 4, 4, "\r\n\r\n") != 0) {
      net::read(socket_, net::buffer(&c, 1));
      head += c;
    }
    if (head.rfind("HTTP/1.1 101", 0) != 0) {
      std::fprintf(stderr, "ws_load: upgrade refused: %s\n", head.c_str());
      std::exit(1);
    }
    ++ready;
    in_.resize(256 * 1024);
    read();
  }
  void go() {
    if (!sends_) return;
    for (std::size_t i = 0; i < pipeline_; ++i) out_ += frame_;
    write();
  }

 private:
  void read() {
    socket_.async_read_some(net::buffer(in_.data() + end_, in_.size() - end_),
                            [self = shared_from_this()](boost::system::error_code ec, std::size_t n) {
                              if (ec) return;
                              self->end_ += n;
                              self->parse();
                              self->read();
                            });
  }
  void parse() {
    std::size_t at = 0;
    for (;;) {
      if (end_ - at < 2) break;
      const auto* p = reinterpret_cast<const unsigned char*>(in_.data() + at);
      std::uint64_t len = p[1] & 0x7f;
      std::size_t head = 2;
      if (len == 126) {
        if (end_ - at < 4) break;
        len = (std::uint64_t{p[2]} << 8) | p[3];
        head = 4;
      } else if (len == 127) {
        if (end_ - at < 10) break;
        len = 0;
        for (int i = 0; i < 8; ++i) len = (len << 8) | p[2 + i];
        head = 10;
      }
      if (end_ - at < head + len) {
        if (head + len > in_.size()) in_.resize(head + len);
        break;
      }
      at += head + len;
      if ((p[0] & 0x0f) == 0x2 || (p[0] & 0x0f) == 0x1) {
        ++received;
        if (sends_) out_ += frame_;
      }
    }
    std::memmove(in_.data(), in_.data() + at, end_ - at);
    end_ -= at;
    if (!writing_ && !out_.empty()) write();
  }
  void write() {
    writing_ = true;
    sending_.swap(out_);
    out_.clear();
    net::async_write(socket_, net::buffer(sending_),
                     [self = shared_from_this()](boost::system::error_code ec, std::size_t) {
                       self->writing_ = false;
                       if (ec) return;
                       if (!self->out_.empty()) self->write();
                     });
  }

  tcp::socket socket_;
  const std::string& frame_;
  std::size_t pipeline_;
  bool sends_;
  std::string in_;
  std::size_t end_ = 0;
  std::string out_, sending_;
  bool writing_ = false;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 8 && !(argc == 9 && std::strcmp(argv[8], "binary") == 0)) {
    std::fprintf(stderr, "usage: ws_load echo|publish PORT PATH CONNECTIONS SIZE PIPELINE SECONDS [binary]\n");
    return 2;
  }
  const std::string mode = argv[1];
  const auto port = static_cast<unsigned short>(std::atoi(argv[2]));
  const std::string path = argv[3];
  const auto connections = static_cast<std::size_t>(std::atol(argv[4]));
  const std::string frame = masked_frame(static_cast<std::size_t>(std::atol(argv[5])), argc == 9);
  const auto pipeline = static_cast<std::size_t>(std::atol(argv[6]));
  const int seconds = std::atoi(argv[7]);

  net::io_context io(1);
  const tcp::endpoint at(net::ip::make_address("127.0.0.1"), port);
  std::vector<std::shared_ptr<client>> clients;
  std::atomic<int> ready{0};
  const bool publish = mode == "publish";
  for (std::size_t i = 0; i < connections + (publish ? 1 : 0); ++i) {
    const bool sends = !publish || i == connections;
    clients.push_back(std::make_shared<client>(io, frame, pipeline, sends));
    clients.back()->start(at, path, ready);
  }
  // Subscribers join on the server's thread after their 101: give them a moment.
  net::steady_timer settle(io, std::chrono::milliseconds(300));
  settle.wait();
  for (auto& c : clients) c->go();
  const auto begin = std::chrono::steady_clock::now();
  io.run_for(std::chrono::seconds(seconds));
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  std::printf("messages %llu seconds %.3f\n", static_cast<unsigned long long>(received), took);
  return 0;
}
