// beast_server: the Boost.Beast peer of the end-to-end benchmark (bench/e2e/run.sh).
//
// Tuned as Beast's own fast example (http_server_fast) is, not as the
// http_server_async a developer starts from (a strand and a timer per
// operation, a response made per request): issue 29 quotes no ratio against an
// untuned peer. One thread, one io_context, 127.0.0.1 only.
// Same bodies and Content-Type as stet-server; like stet and nginx it sends
// Server and Date headers, the Date string rebuilt at most once a second.
//
// usage: beast_server PORT

#include <boost/asio/signal_set.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/version.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <memory>
#include <string>

namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;
using tcp = net::ip::tcp;

namespace {

// The IMF-fixdate for "now", recomputed only when the second changes.
const std::string& http_date() {
  static std::string text;
  static std::time_t cached = -1;
  const std::time_t now = std::time(nullptr);
  if (now != cached) {
    cached = now;
    std::tm tm{};
    gmtime_r(&now, &tm);
    char buf[64];
    const std::size_t n = std::strftime(buf, sizeof buf, "%a, %d %b %Y %H:%M:%S GMT", &tm);
    text.assign(buf, n);
  }
  return text;
}

// What a request gets: the status, Content-Type and body, from static storage.
struct answer {
  http::status status;
  const char* content_type;
  const char* body;
};

answer route(const http::request<http::string_body>& req) {
  if (req.method() == http::verb::get || req.method() == http::verb::head) {
    if (req.target() == "/plaintext") return {http::status::ok, "text/plain; charset=utf-8", "Hello, World!"};
    if (req.target() == "/json") return {http::status::ok, "application/json", R"({"message":"Hello, World!"})"};
  }
  return {http::status::not_found, "text/plain; charset=utf-8", "Not Found"};
}

// A connection reads a request, answers, and reads again while keep-alive
// holds. Tuned as Beast's http_server_fast is: a plain socket (no strand, no
// timer per operation: one thread runs everything), and the buffer, request
// and response objects kept for the connection's life instead of made per
// request, so a keep-alive request allocates only what Beast's parser does.
class session : public std::enable_shared_from_this<session> {
 public:
  explicit session(tcp::socket&& socket) : socket_(std::move(socket)) { res_.set(http::field::server, "beast"); }

  void run() { do_read(); }

 private:
  void do_read() {
    req_ = {};  // a fresh parser state for the next request on this connection
    http::async_read(socket_, buffer_, req_, beast::bind_front_handler(&session::on_read, shared_from_this()));
  }

  void on_read(beast::error_code ec, std::size_t) {
    if (ec) return do_close();
    const answer a = route(req_);
    res_.result(a.status);
    res_.version(req_.version());
    res_.set(http::field::date, http_date());
    res_.set(http::field::content_type, a.content_type);
    res_.keep_alive(req_.keep_alive());
    res_.body() = a.body;
    res_.prepare_payload();
    http::async_write(socket_, res_, beast::bind_front_handler(&session::on_write, shared_from_this()));
  }

  void on_write(beast::error_code ec, std::size_t) {
    if (ec || !res_.keep_alive()) return do_close();
    do_read();
  }

  void do_close() {
    beast::error_code ec;
    socket_.shutdown(tcp::socket::shutdown_send, ec);
  }

  tcp::socket socket_;
  beast::flat_buffer buffer_;
  http::request<http::string_body> req_;
  http::response<http::string_body> res_;
};

class listener : public std::enable_shared_from_this<listener> {
 public:
  listener(net::io_context& ioc, const tcp::endpoint& endpoint) : acceptor_(ioc) {
    acceptor_.open(endpoint.protocol());
    acceptor_.set_option(net::socket_base::reuse_address(true));
    acceptor_.bind(endpoint);
    acceptor_.listen(net::socket_base::max_listen_connections);
  }

  void run() { do_accept(); }

 private:
  void do_accept() { acceptor_.async_accept(beast::bind_front_handler(&listener::on_accept, shared_from_this())); }

  void on_accept(beast::error_code ec, tcp::socket socket) {
    if (!ec) {
      socket.set_option(tcp::no_delay(true), ec);
      std::make_shared<session>(std::move(socket))->run();
    }
    do_accept();
  }

  tcp::acceptor acceptor_;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: beast_server PORT\n");
    return 2;
  }
  const auto port = static_cast<unsigned short>(std::atoi(argv[1]));
  net::io_context ioc{1};  // concurrency hint 1: one thread runs everything
  std::make_shared<listener>(ioc, tcp::endpoint{net::ip::make_address("127.0.0.1"), port})->run();

  // SIGINT/SIGTERM end run() cleanly, so the harness can stop us by PID.
  net::signal_set signals(ioc, SIGINT, SIGTERM);
  signals.async_wait([&ioc](const beast::error_code&, int) { ioc.stop(); });

  std::fprintf(stderr, "beast_server: listening on http://127.0.0.1:%u/\n", port);
  ioc.run();
  return 0;
}
