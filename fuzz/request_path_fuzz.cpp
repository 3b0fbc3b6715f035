// Target 1: the whole request path. One worker (short timeouts, small limits)
// with a handful of representative routes, behind the real TCP listener on
// 127.0.0.1, lives for the life of the process; its loop is turned by hand on
// the fuzzer's thread (support/hand_loop.hpp: no second thread to hand each
// read to, no system call per handler). Each input is one client connection
// over a real TCP socket that delivers the input's bytes cut into writes as
// its first bytes say (the server reads each piece before the next is sent),
// half-closes, and reads until the server closes. Properties of what came back:
//   - the server closes the connection once the client has sent everything
//     (no hang, whatever state the bytes left it in);
//   - the server goes quiet whenever no new bytes arrive (no busy wait);
//   - the bytes are a sequence of complete HTTP/1.1 responses with valid
//     status lines, fields and framing; nothing follows `Connection: close`;
//   - no answer is a 500 (no handler here throws: a 500 is the library failing);
//   - no more answers than requests (each request head ends in CRLF CRLF).

#include "support/hand_loop.hpp"
#include "support/require.hpp"
#include "support/response_reader.hpp"
#include "support/splits.hpp"
#include "support/test_server.hpp"

#include "net/accept/listener.hpp"
#include "net/server/worker.hpp"

#include <stet/stet.hpp>

#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <string_view>

namespace {

using stet::fuzz::require;

// Long enough that only a server that never closes trips it, even on a busy machine.
constexpr int exchange_timeout_ms = 20'000;

std::filesystem::path static_root;

void make_static_root() {
  std::string dir = (std::filesystem::temp_directory_path() / "stet-fuzz-XXXXXX").string();
  require(::mkdtemp(dir.data()) != nullptr, "mkdtemp");
  static_root = dir;
  const auto write = [](const std::filesystem::path& p, std::string_view bytes) {
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << bytes;
  };
  write(static_root / "index.html", "<!doctype html><title>fuzz</title>\n");
  write(static_root / "a.txt", "plain text file\n");
  write(static_root / "sub" / "b.css", "body { color: black }\n");
  write(static_root / ".hidden", "never served\n");
  write(static_root / "big.bin", std::string(40 * 1024, 'x'));  // over the 16 KiB gather threshold
  std::atexit([] { std::filesystem::remove_all(static_root); });
}

stet::response stream_rows(stet::request& req) {
  std::size_t rows = 0;
  const std::string_view q = req.query().get("rows").value_or("3");
  std::from_chars(q.data(), q.data() + q.size(), rows);
  rows = std::min<std::size_t>(rows, 200);
  stet::response r;
  r.set_stream([rows, next = std::size_t{0}](stet::stream_writer& out) mutable {
    while (next < rows && out.wants_more()) out.write("row," + std::to_string(next++) + "\n");
    return next < rows;
  });
  return r;
}

stet::router make_routes(std::shared_ptr<const stet::signer> signer) {
  stet::router r;
  r.get("/plaintext", [](stet::request&) { return stet::response::text("Hello, World!"); });
  r.post("/echo", [](stet::request& req) { return stet::response::text(req.body()); });
  r.post("/json", [](stet::request& req) {
    const stet::json_result& body = req.json();
    if (!body) return stet::response::json_error(body.error(), body.detail());
    return stet::response::json(*body);
  });
  r.get("/query", [](stet::request& req) {
    std::string out;
    for (const stet::form_field& f : req.query().sorted()) out.append(f.name).append("=").append(f.value).append("\n");
    return stet::response::text(out);
  });
  r.post("/form", [](stet::request& req) {
    const stet::form_result& form = req.form();
    if (!form) return stet::response::text("not a form\n", form.status());
    return stet::response::text(std::to_string(form->size()));
  });
  r.get("/cookies", [signer](stet::request& req) {
    std::string out(req.signed_cookie(*signer, "actor").value_or("-"));
    for (const stet::cookie& c : req.cookies().all()) out.append(";").append(c.name).append("=").append(c.value);
    return stet::response::text(out);
  });
  r.get("/header", [](stet::request& req) { return stet::response::text(req.header("x-a").value_or("")); });
  r.get("/users/{id:int}", [](stet::request&, std::int64_t id) { return stet::response::text(std::to_string(id)); });
  r.get("/users/{id:int}/posts/{slug}",
        [](stet::request&, std::int64_t, std::string_view slug) { return stet::response::text(slug); });
  r.get("/files/{path*}", [](stet::request&, std::string_view path) { return stet::response::text(path); });
  r.get("/stream", stream_rows);
  r.get("/login", [signer](stet::request&) {
    stet::response res = stet::response::text("ok");
    res.set_signed_cookie(*signer, "actor", "fuzz", {});
    return res;
  });
  stet::mount(r, "/static", std::make_shared<stet::static_files>(static_root.string()));
  return r;
}

// The integration tests' options (port 0, short timeouts), with one worker and
// small limits so that the fuzzer reaches every limit.
stet::server_options fuzz_options() {
  stet::server_options o = stet::test::test_options();
  o.threads = 1;
  o.max_header_bytes = 2048;
  o.max_target_bytes = 1024;
  o.max_header_count = 24;
  o.max_body_bytes = 8192;
  o.max_pipeline_output_bytes = 16 * 1024;  // small, so back-pressure between requests is exercised
  o.metrics = std::make_shared<stet::metrics>();
  o.server_timing = true;
  return o;
}

// The server's part: the worker, and the listener that hands it connections.
// Nothing limits accepting, and a closed connection needs nobody told.
struct hosts final : stet::detail::connection_host, stet::detail::listener_host {
  void connection_closed() noexcept override {}
  bool may_accept() noexcept override { return true; }
  void accepted() noexcept override {}
  bool stopping() const noexcept override { return false; }
};

struct server_state {
  explicit server_state(std::shared_ptr<const stet::signer> signer) : routes(make_routes(std::move(signer))) {}
  hosts h;
  stet::server_options options = fuzz_options();
  stet::router routes;
  stet::detail::worker worker{h, routes, options, nullptr};
  stet::detail::listener listener{h, options.listeners.front(), {&worker}};
  std::uint16_t port = 0;
};

// Never destroyed: the process ends with the fuzzer, and a server torn down at
// exit would race the report of a crash.
server_state* the_server = nullptr;

// Each connection the server closes first waits a minute in TIME_WAIT; at a
// thousand connections a second one source address runs out of ports, and
// other programs on the machine (benchmarks) take ports of 127.0.0.1 too. The
// client's address goes round 127.0.0.1-254, its port is chosen at connect()
// against the whole address pair (IP_BIND_ADDRESS_NO_PORT), and an address
// that has no port left (EADDRNOTAVAIL) gives way to the next: a machine out
// of ports is not a server fault. Any other failure is one, with its errno.
int connect_client(std::uint16_t port) {
  static std::uint32_t next_source = 0;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  for (int tries = 0;; ++tries) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    require(fd >= 0, "socket()");
    const int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    ::setsockopt(fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof one);
    sockaddr_in from{};
    from.sin_family = AF_INET;
    from.sin_addr.s_addr = htonl(INADDR_LOOPBACK + next_source++ % 254);
    require(::bind(fd, reinterpret_cast<const sockaddr*>(&from), sizeof from) == 0, "bind() to a loopback address",
            std::strerror(errno));
    // The listening socket's backlog completes the handshake; the worker accepts later.
    if (::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0) {
      ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
      return fd;
    }
    const int error = errno;
    ::close(fd);
    // EADDRNOTAVAIL: this source address is out of ports, the next is not.
    // EINTR: libFuzzer's timeout alarm (SIGALRM) cut the blocking connect;
    // the server's side of that socket ends as any closed client's does.
    require((error == EADDRNOTAVAIL || error == EINTR) && tries < 254, "the server accepts connections",
            std::strerror(error));
  }
}

struct exchange_result {
  std::string received;
  bool closed = false;  ///< the server closed (EOF or reset) before the deadline
};

// One connection: each piece written whole, the server then turned until it
// is quiet (so it reads that piece), a half-close after the last, then the
// loop turned, waiting on the reactor (timers run as in a real server), until
// the server closes or the deadline passes.
exchange_result exchange(std::string_view payload, const std::vector<std::size_t>& pieces) {
  stet::detail::asio::io_context& io = the_server->worker.io();
  const int fd = connect_client(the_server->port);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(exchange_timeout_ms);
  const auto wait = [&] { stet::fuzz::wait_for_reactor(io, std::chrono::milliseconds(100)); };
  exchange_result out;
  bool refused = false;  // the server closed first (it answered an error): the rest is not wanted
  bool full = false;     // the last send found the socket full, after the server had run
  std::size_t offset = 0;
  for (const std::size_t piece : pieces) {
    std::string_view rest = payload.substr(offset, piece);
    offset += piece;
    while (!rest.empty() && !refused && !out.closed && std::chrono::steady_clock::now() < deadline) {
      const ssize_t n = ::send(fd, rest.data(), rest.size(), MSG_NOSIGNAL);
      if (n > 0) {
        rest.remove_prefix(static_cast<std::size_t>(n));
        full = false;
      } else if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
        refused = true;
      } else {
        // The socket is full: the server reads and writes, the client reads;
        // still full after that, the server waits on its reactor (a timer).
        if (full) wait();
        out.closed = stet::fuzz::pump(io, fd, out.received, payload) || out.closed;
        full = true;
      }
    }
    if (refused || out.closed) break;
    out.closed = stet::fuzz::pump(io, fd, out.received, payload);
  }
  ::shutdown(fd, SHUT_WR);
  while (!out.closed && std::chrono::steady_clock::now() < deadline) {
    const std::size_t had = out.received.size();
    out.closed = stet::fuzz::pump(io, fd, out.received, payload);
    if (!out.closed && out.received.size() == had) wait();
  }
  ::close(fd);
  return out;
}

std::size_t count_heads(std::string_view bytes) {
  std::size_t n = 0;
  for (std::size_t at = bytes.find("\r\n\r\n"); at != std::string_view::npos; at = bytes.find("\r\n\r\n", at + 4)) ++n;
  return n;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  make_static_root();
  the_server =
      new server_state(std::make_shared<const stet::signer>(std::vector<std::string>{"fuzz-secret"}, "cookies"));
  std::string why;
  const std::optional<stet::detail::listen_address> at =
      stet::detail::parse_listen_address(the_server->options.listeners.front().address, why);
  require(at.has_value(), "a listen address", why);
  require(!the_server->listener.open(*at, false, the_server->options.backlog, why), "the server listens", why);
  the_server->port = the_server->listener.port();
  the_server->worker.enter_thread();
  the_server->listener.accept_next();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const stet::fuzz::split_input input = stet::fuzz::take_splits(data, size);
  const exchange_result got = exchange(input.payload, input.pieces);
  require(got.closed, "the server closes the connection after the client's last byte", input.payload);

  const std::optional<std::vector<unsigned>> statuses = stet::fuzz::response_reader(got.received).statuses();
  require(statuses.has_value(), "complete, well-formed responses; none after Connection: close", got.received);
  for (const unsigned status : *statuses)
    require(status != 500, "no 500 from handlers that never throw", input.payload);
  require(statuses->size() <= count_heads(input.payload) + 1, "no more answers than requests", input.payload);
  return 0;
}
