// beast_ws_server: the Boost.Beast WebSocket echo peer of bench/e2e/websocket.sh.
//
// Written the way Beast's "websocket_server_async" example is written: a
// listener that accepts, a session per connection that accepts the upgrade,
// reads a message into a flat_buffer and writes it back with the same opcode,
// then reads again. One thread, one io_context, 127.0.0.1 only; no
// permessage-deflate (stet's route under test has none either).
//
// usage: beast_ws_server PORT

#include <boost/asio/signal_set.hpp>
#include <boost/asio/strand.hpp>
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
    ws_.set_option(websocket::stream_base::timeout::suggested(beast::role_type::server));
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

  websocket::stream<beast::tcp_stream> ws_;
  beast::flat_buffer buffer_;
};

class listener : public std::enable_shared_from_this<listener> {
 public:
  listener(net::io_context& io, tcp::endpoint at) : io_(io), acceptor_(io) {
    acceptor_.open(at.protocol());
    acceptor_.set_option(net::socket_base::reuse_address(true));
    acceptor_.bind(at);
    acceptor_.listen(net::socket_base::max_listen_connections);
  }
  void accept() {
    acceptor_.async_accept(net::make_strand(io_), [self = shared_from_this()](beast::error_code ec, tcp::socket s) {
      if (!ec) std::make_shared<session>(std::move(s))->run();
      self->accept();
    });
  }

 private:
  net::io_context& io_;
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
