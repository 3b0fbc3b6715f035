// beast_ws_server: the Boost.Beast WebSocket echo peer of bench/e2e/websocket.sh.
//
// Tuned the way Beast's own fast example is written
// (example/websocket/server/fast/websocket_server_fast.cpp, its asynchronous
// port): a plain tcp::socket under the stream (no tcp_stream, no timeout, no
// strand: one thread runs the one io_context), auto_fragment(false), a large
// read_message_max, one read then one write per message. The one difference:
// permessage-deflate is not offered (the load client does not ask for it,
// and stet's route under test has none either). 127.0.0.1 only.
//
// usage: beast_ws_server PORT

#include <boost/asio/signal_set.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/websocket.hpp>

#include <cstdio>
#include <cstdlib>
#include <memory>

namespace beast = boost::beast;
namespace websocket = beast::websocket;
namespace net = boost::asio;
using tcp = net::ip::tcp;

namespace {

class session : public std::enable_shared_from_this<session> {
 public:
  explicit session(tcp::socket&& socket) : ws_(std::move(socket)) {}

  void run() {
    ws_.auto_fragment(false);
    ws_.read_message_max(64 << 20);
    ws_.async_accept([self = shared_from_this()](beast::error_code ec) {
      if (!ec) self->read();
    });
  }

 private:
  void read() {
    ws_.async_read(buffer_, [self = shared_from_this()](beast::error_code ec, std::size_t) {
      if (ec) return;
      self->ws_.text(self->ws_.got_text());
      self->ws_.async_write(self->buffer_.data(), [self](beast::error_code ec, std::size_t) {
        if (ec) return;
        self->buffer_.consume(self->buffer_.size());
        self->read();
      });
    });
  }

  websocket::stream<tcp::socket> ws_;
  beast::flat_buffer buffer_;
};

class listener : public std::enable_shared_from_this<listener> {
 public:
  listener(net::io_context& io, tcp::endpoint at) : acceptor_(io) {
    acceptor_.open(at.protocol());
    acceptor_.set_option(net::socket_base::reuse_address(true));
    acceptor_.bind(at);
    acceptor_.listen(net::socket_base::max_listen_connections);
  }
  void accept() {
    acceptor_.async_accept([self = shared_from_this()](beast::error_code ec, tcp::socket s) {
      if (!ec) {
        s.set_option(tcp::no_delay(true));
        std::make_shared<session>(std::move(s))->run();
      }
      self->accept();
    });
  }

 private:
  tcp::acceptor acceptor_;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: beast_ws_server PORT\n");
    return 2;
  }
  net::io_context io(1);
  const auto port = static_cast<unsigned short>(std::atoi(argv[1]));
  std::make_shared<listener>(io, tcp::endpoint(net::ip::make_address("127.0.0.1"), port))->accept();
  net::signal_set signals(io, SIGINT, SIGTERM);
  signals.async_wait([&io](beast::error_code, int) { io.stop(); });
  std::fprintf(stderr, "beast_ws_server: listening on 127.0.0.1:%u\n", port);
  io.run();
  return 0;
}
