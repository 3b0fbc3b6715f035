// beast_server: the Boost.Beast peer of the end-to-end benchmark (bench/e2e/run.sh).
//
// Written the way Beast's own "http_server_async" example is written (a
// listener that accepts, a session per connection that reads a request,
// answers, and reads again while keep-alive holds), because that is the code a
// C++ developer starts from. One thread, one io_context, 127.0.0.1 only.
// Same bodies and Content-Type as stet-server; like stet and nginx it sends
// Server and Date headers, the Date string rebuilt at most once a second.
//
// usage: beast_server PORT

#include <boost/asio/dispatch.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/strand.hpp>
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

http::message_generator handle_request(http::request<http::string_body>&& req) {
  auto answer = [&req](http::status status, const char* type, const char* body) {
    http::response<http::string_body> res{status, req.version()};
    res.set(http::field::server, "beast");
    res.set(http::field::date, http_date());
    res.set(http::field::content_type, type);
    res.keep_alive(req.keep_alive());
    res.body() = body;
    res.prepare_payload();
    return res;
  };
  if (req.method() == http::verb::get || req.method() == http::verb::head) {
    if (req.target() == "/plaintext") return answer(http::status::ok, "text/plain; charset=utf-8", "Hello, World!");
    if (req.target() == "/json")
      return answer(http::status::ok, "application/json", R"({"message":"Hello, World!"})");
  }
  return answer(http::status::not_found, "text/plain; charset=utf-8", "Not Found");
}

class session : public std::enable_shared_from_this<session> {
 public:
  explicit session(tcp::socket&& socket) : stream_(std::move(socket)) {}

  void run() { net::dispatch(stream_.get_executor(), beast::bind_front_handler(&session::do_read, shared_from_this())); }

 private:
  void do_read() {
    req_ = {};  // a fresh parser state for the next request on this connection
    stream_.expires_after(std::chrono::seconds(30));
    http::async_read(stream_, buffer_, req_, beast::bind_front_handler(&session::on_read, shared_from_this()));
  }

  void on_read(beast::error_code ec, std::size_t) {
    if (ec) return do_close();
    send_response(handle_request(std::move(req_)));
  }

  void send_response(http::message_generator&& msg) {
    const bool keep_alive = msg.keep_alive();
    beast::async_write(stream_, std::move(msg),
                       beast::bind_front_handler(&session::on_write, shared_from_this(), keep_alive));
  }

  void on_write(bool keep_alive, beast::error_code ec, std::size_t) {
    if (ec || !keep_alive) return do_close();
    do_read();
  }

  void do_close() {
    beast::error_code ec;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ec);
  }

  beast::tcp_stream stream_;
  beast::flat_buffer buffer_;
  http::request<http::string_body> req_;
};

class listener : public std::enable_shared_from_this<listener> {
 public:
  listener(net::io_context& ioc, const tcp::endpoint& endpoint) : ioc_(ioc), acceptor_(ioc) {
    acceptor_.open(endpoint.protocol());
    acceptor_.set_option(net::socket_base::reuse_address(true));
    acceptor_.bind(endpoint);
    acceptor_.listen(net::socket_base::max_listen_connections);
  }

  void run() { do_accept(); }

 private:
  void do_accept() {
    acceptor_.async_accept(net::make_strand(ioc_), beast::bind_front_handler(&listener::on_accept, shared_from_this()));
  }

  void on_accept(beast::error_code ec, tcp::socket socket) {
    if (!ec) std::make_shared<session>(std::move(socket))->run();
    do_accept();
  }

  net::io_context& ioc_;
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
