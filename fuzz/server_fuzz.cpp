// Target: the whole server where its features meet. One worker, turned by
// hand on the fuzzer's thread (no sockets, no threads, no waiting), serves
// every kind of route at once: buffered handlers, a chunked stream, streamed
// upload sinks (one that pauses and resumes), a coroutine reading its body
// with body_stream, WebSocket routes with and without permessage-deflate, a
// route answered through the response cache, a server-sent-event stream,
// with response compression and coded request bodies on. Each input is one
// client connection; its first bytes say how to set it up and where to cut
// the rest into reads:
//
//   byte 0    setup: 1 PROXY intake (the connection comes over a unix
//             socketpair through the real PROXY protocol intake, so the
//             payload starts with a v1 or v2 header), 2 the server catches up
//             after every piece (else every piece is queued before it runs),
//             4 writes take at most 7 bytes, 8 the first writes would block
//   byte 1    n, the plan's size (0-15), then n little-endian u16 entries:
//             piece sizes minus one, repeated until the payload is used up,
//             in at most max_pieces reads (the last takes the rest)
//   the rest  the payload
//
// Properties: no sanitizer report; the server goes quiet whenever no new
// bytes arrive (no busy wait); once the client has sent everything and
// half-closed, the server closes (nothing left waiting); the output is a
// sequence of well-framed responses (status line, fields, Content-Length or
// chunked framing), and after a 101 well-formed server WebSocket frames;
// nothing follows Connection: close or a close frame; no 500 (no handler
// throws); no more answers than request heads; a keep-alive connection whose
// requests are all answered holds no exchange (its read buffer, parser and
// arena are back in the worker's pool); the response cache stays within its
// byte budget and is empty after invalidate_all(); an event is written so
// that a client reads back that event and nothing else (or refused whole when
// its id or name holds CR, LF or NUL), a comment so that it reads as nothing.

#include "support/event_reader.hpp"
#include "support/hand_loop.hpp"
#include "support/multipart_listing.hpp"
#include "support/require.hpp"
#include "support/wire_reader.hpp"

#include "events/event_format.hpp"
#include "net/accept/proxy_intake.hpp"
#include "net/server/worker.hpp"
#include "support/memory_transport.hpp"

#include <stet/body.hpp>
#include <stet/body_stream.hpp>
#include <stet/events.hpp>
#include <stet/multipart.hpp>
#include <stet/response_cache.hpp>
#include <stet/router.hpp>
#include <stet/stet.hpp>
#include <stet/task.hpp>
#include <stet/websocket.hpp>

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace {

using stet::test::multipart_listing;

using stet::detail::memory_stream;
using stet::fuzz::require;

// Where resume() of a paused sink is posted (the worker's loop).
stet::detail::worker* the_worker = nullptr;

// Sums a streamed body: "size:sum".
class summing_sink final : public stet::body_sink {
 public:
  explicit summing_sink(bool pausing) : pausing_(pausing) {}
  stet::body_flow on_data(std::string_view piece) override {
    for (const char c : piece) sum_ += static_cast<unsigned char>(c);
    size_ += piece.size();
    // Every other piece: hold it, and let go from a later turn of the loop.
    if (pausing_ && (++pieces_ & 1u) == 0) {
      boost::asio::post(the_worker->io(), [this] { resume(); });
      return stet::body_flow::pause;
    }
    return stet::body_flow::more;
  }
  stet::response on_end() override { return stet::response::text(std::to_string(size_) + ":" + std::to_string(sum_)); }
  void on_abort(std::error_code) noexcept override {}

 private:
  bool pausing_;
  std::uint64_t pieces_ = 0;
  std::uint64_t size_ = 0;
  std::uint64_t sum_ = 0;
};

stet::response stream_rows(stet::request& req) {
  std::size_t rows = 0;
  const std::string_view q = req.query().get("rows").value_or("3");
  std::from_chars(q.data(), q.data() + q.size(), rows);
  rows = std::min<std::size_t>(rows, 2000);
  stet::response r;
  r.set_stream([rows, next = std::size_t{0}](stet::stream_writer& out) mutable {
    while (next < rows && out.wants_more()) out.write("row," + std::to_string(next++) + "\n");
    return next < rows;
  });
  return r;
}

stet::websocket_handlers<> echo_handlers() {
  return {.message = [](stet::websocket<>& ws, std::string_view m, stet::message_kind k) {
    // "close" asks the server to close; anything else comes back.
    if (m == "close") {
      ws.close(stet::close_code::normal, "asked");
      return;
    }
    ws.send(m, k);
  }};
}

// Whether an event's id or name may be sent: no CR, LF or NUL in it.
bool event_field(std::string_view v) {
  return v.find_first_of(std::string_view("\r\n\0", 3)) == std::string_view::npos;
}

// What stet writes for an event is read back by a client as that event and
// nothing else (no field of the request's making), and an event it cannot
// write so is refused whole.
void check_event_form(const stet::event& e) {
  std::string text;
  const bool written = stet::append_event(text, e);
  require(written == (event_field(e.id) && event_field(e.name)),
          "append_event refuses exactly ids and names holding CR, LF or NUL", e.id);
  require(written || text.empty(), "a refused event appends nothing", text);
  if (!written) return;
  const stet::fuzz::event_reading r = stet::fuzz::read_event_stream(text);
  const bool itself = r.events.size() == 1 && r.events[0].data == stet::fuzz::normalized_lines(e.data) &&
                      r.events[0].id == e.id && r.events[0].type == e.name && !r.retry;
  require(itself, "an event is read back as itself", text);
  for (const std::string& f : r.fields)
    require(f == "data" || f == "id" || f == "event", "an event's lines are its own fields", text);
}

// A comment, whatever its text, is read as no field and no event.
void check_comment_form(std::string_view note) {
  std::string text;
  stet::detail::append_event_comment(text, note);
  const stet::fuzz::event_reading r = stet::fuzz::read_event_stream(text);
  require(r.events.empty() && r.fields.empty() && !r.retry, "a comment is read as nothing", text);
}

stet::router make_routes(const std::shared_ptr<stet::response_cache>& cache) {
  stet::router r;
  r.get("/plaintext", [](stet::request&) { return stet::response::text("Hello, World!"); });
  r.get("/big", [](stet::request&) { return stet::response::text(std::string(3000, 'b') + "tail"); });
  r.post("/echo", [](stet::request& req) { return stet::response::text(req.body()); });
  r.get("/stream", stream_rows);

  stet::route_options streamed;
  streamed.stream_body = true;
  streamed.max_body_bytes = 256 * 1024;
  r.put("/sink", streamed, [](stet::request&) { return stet::read_body(std::make_unique<summing_sink>(false)); });
  r.put("/pause", streamed, [](stet::request&) { return stet::read_body(std::make_unique<summing_sink>(true)); });
  r.post("/form", streamed, [](stet::request& req) {
    return stet::read_body(std::make_unique<multipart_listing>(req.header("content-type").value_or("")));
  });
  r.post("/co", streamed, [](stet::request& req) -> stet::task<stet::response> {
    auto body = co_await stet::body_stream(req);
    std::size_t n = 0;
    while (auto piece = co_await body.next()) n += piece->size();
    co_return stet::response::text(std::to_string(n));
  });
  r.get("/co", [](stet::request& req) -> stet::task<stet::response> {
    co_return stet::response::text(std::string(req.query().get("n").value_or("co")) + std::string(200, 'c'));
  });

  // The response cache, where it meets compression, HEAD, validators and
  // ranges, under a budget small enough that inputs evict. Emptied after
  // each input, so an input is answered alike whenever it runs (a finding
  // reproduces from its input alone). An hour's ttl and no stale window:
  // nothing runs on the cache's refresh thread.
  stet::cache_policy policy;
  policy.ttl = std::chrono::hours(1);
  policy.query_args = {"n"};
  policy.vary = {"accept-language"};
  r.get("/cached", cache->route("cached", policy), [](stet::request& req) {
    return stet::response::text(std::string(req.query().get("n").value_or("c")) + std::string(300, 'c'));
  });
  // Server-sent events: a finite stream (an event, a comment, an event with
  // a retry, then the end) whose fields are what the query asks for; each is
  // checked against the specification's reader before it is sent.
  r.get("/events", [](stet::request& req) {
    const stet::form_data& q = req.query();
    std::string id(q.get("id").value_or("1"));
    std::string name(q.get("name").value_or(""));
    std::string data(q.get("data").value_or("one\ntwo\r\nthree"));
    std::string note(q.get("note").value_or("beat"));
    check_event_form({.data = data, .id = id, .name = name});
    check_comment_form(note);
    return stet::event_stream([id, name, data, note](stet::event_channel& ch) {
      const stet::event_status sent = ch.send({.data = data, .id = id, .name = name});
      require((sent == stet::event_status::invalid) == !(event_field(id) && event_field(name)),
              "an event is refused exactly when its id or name holds CR, LF or NUL", id + name);
      ch.comment(note);
      ch.send({.data = "", .name = "end", .retry = std::chrono::milliseconds(500)});
      ch.close();
    });
  });

  stet::websocket_options plain;
  plain.max_message_bytes = 128 * 1024;
  r.websocket("/ws", plain, echo_handlers());
  stet::websocket_options deflate = plain;
  deflate.compression.enabled = true;
  deflate.compression.min_bytes = 16;
  r.websocket("/wsz", deflate, echo_handlers());
  stet::websocket_options takeover = deflate;
  takeover.compression.server_no_context_takeover = false;
  takeover.compression.client_no_context_takeover = false;
  takeover.compression.server_max_window_bits = 10;
  takeover.compression.client_max_window_bits = 9;
  takeover.max_frame_bytes = 4096;
  r.websocket("/wszt", takeover, echo_handlers());
  return r;
}

stet::compression_options fuzz_compression() {
  stet::compression_options c;
  c.enabled = true;
  c.min_bytes = 64;
  c.decode_request_bodies = true;
  c.max_decoded_body_bytes = 16 * 1024;
  return c;
}

// Small limits so that inputs reach them; long timeouts, since the loop
// never waits for one (a connection left waiting is the failure).
stet::server_options fuzz_options() {
  stet::server_options o;
  o.max_header_bytes = 2048;
  o.max_target_bytes = 1024;
  o.max_header_count = 24;
  o.max_body_bytes = 8192;
  o.max_pipeline_output_bytes = 16 * 1024;
  o.server_timing = true;
  o.compression = fuzz_compression();
  o.offload_threads = 0;
  return o;
}

struct host final : stet::detail::connection_host {
  void connection_closed() noexcept override { ++closed; }
  int closed = 0;
};

constexpr std::uint64_t cache_budget = 8 * 1024;

struct server_state {
  host h;
  stet::server_options options = fuzz_options();
  std::shared_ptr<stet::response_cache> cache = std::make_shared<stet::response_cache>(
      stet::response_cache_options{.budget_bytes = cache_budget, .compression = fuzz_compression()});
  stet::router routes = make_routes(cache);
  stet::detail::worker worker{h, routes, options, nullptr};
};
server_state* the_server = nullptr;  // never destroyed (see request_path_fuzz.cpp)

// The reads an input is cut into, at most; the last takes what is left. A
// plan can put these cuts anywhere in the payload (its pieces are up to 64 KiB),
// so every boundary a head, chunk or frame has stays reachable; without a bound
// an input of tens of KiB cut a byte at a time costs a turn of the loop per
// byte, and the kept corpus's few such inputs took most of the target's time.
constexpr std::size_t max_pieces = 256;

// The setup byte and the cut plan.
struct plan {
  bool proxy = false;
  bool catch_up = false;
  bool short_writes = false;
  bool blocked_writes = false;
  std::string_view payload;
  std::vector<std::size_t> pieces;
};

plan read_plan(const std::uint8_t* data, std::size_t size) {
  plan p;
  if (size < 2) {
    p.payload = std::string_view(reinterpret_cast<const char*>(data), size);
    if (size > 0) p.pieces.push_back(size);
    return p;
  }
  // FUZZ_SERVER_NO_PROXY=1 keeps every input off the PROXY intake (to fuzz the
  // rest while a finding there is open).
  static const bool no_proxy = std::getenv("FUZZ_SERVER_NO_PROXY") != nullptr;
  p.proxy = (data[0] & 1u) != 0 && !no_proxy;
  p.catch_up = (data[0] & 2u) != 0;
  p.short_writes = (data[0] & 4u) != 0;
  p.blocked_writes = (data[0] & 8u) != 0;
  const std::size_t entries = std::min<std::size_t>(data[1] & 15u, (size - 2) / 2);
  const std::uint8_t* table = data + 2;
  const std::size_t start = 2 + 2 * entries;
  p.payload = std::string_view(reinterpret_cast<const char*>(data) + start, size - start);
  std::size_t left = p.payload.size();
  for (std::size_t i = 0; left > 0; ++i) {
    std::size_t piece = left;
    if (entries > 0 && i + 1 < max_pieces) {
      const std::uint8_t* e = table + 2 * (i % entries);
      piece = std::min<std::size_t>(static_cast<std::size_t>(e[0] | (e[1] << 8)) + 1, left);
    }
    p.pieces.push_back(piece);
    left -= piece;
  }
  return p;
}

std::size_t count_heads(std::string_view bytes) {
  std::size_t n = 0;
  for (std::size_t at = bytes.find("\r\n\r\n"); at != std::string_view::npos; at = bytes.find("\r\n\r\n", at + 4)) ++n;
  return n;
}

// The client's side of one connection: the memory stream, or a socketpair's end.
struct outcome {
  std::string received;
  bool closed = false;
};

// Whether the connection is idle now: open, not upgraded, every request
// answered (only decidable when the payload ends exactly where a head does
// and each head got a 2xx answer). An idle keep-alive connection holds no
// exchange: closing it then gives none back to the worker's pool.
bool idle(const plan& p, std::string_view received) {
  if (!p.payload.ends_with("\r\n\r\n")) return false;
  stet::fuzz::wire_reader reader(received);
  const std::optional<stet::fuzz::wire_reading> r = reader.read();
  if (!r || r->upgraded || r->statuses.size() != count_heads(p.payload)) return false;
  return std::all_of(r->statuses.begin(), r->statuses.end(), [](unsigned s) { return s < 300; });
}

outcome run_memory(const plan& p) {
  stet::detail::worker& w = the_server->worker;
  auto stream = std::make_shared<memory_stream>(w.io());
  if (p.short_writes) stream->write_limit = 7;
  if (p.blocked_writes) stream->blocked_writes = 3;
  w.adopt(std::make_unique<stet::detail::memory_transport>(stream), stet::endpoint::parse("192.0.2.7", 4000));
  std::size_t offset = 0;
  for (const std::size_t piece : p.pieces) {
    stream->feed(p.payload.substr(offset, piece));
    offset += piece;
    // Catching up runs the handlers; the reactor, which in memory holds
    // only timers, is asked once the client has sent everything.
    if (p.catch_up) {
      const std::size_t steps = stet::fuzz::poll_handlers(w.io(), stet::fuzz::max_steps);
      require(steps < stet::fuzz::max_steps, "the server goes quiet when no bytes arrive (no busy wait)", p.payload);
    }
  }
  stet::fuzz::run_until_quiet(w.io(), p.payload);
  const bool was_idle = !stream->closed() && idle(p, stream->output());
  const std::size_t spares_idle = w.exchanges().spares();
  const std::size_t created_idle = w.exchanges().created();
  stream->feed_eof();
  stet::fuzz::run_until_quiet(w.io(), p.payload);
  if (was_idle && stream->closed()) {
    require(w.exchanges().spares() == spares_idle && w.exchanges().created() == created_idle,
            "an idle keep-alive connection holds no exchange", p.payload);
  }
  outcome o;
  o.closed = stream->closed();
  o.received = stream->take_output();
  if (!o.closed) stream->abandon();  // reported below; the parked read must not keep it alive
  return o;
}

outcome run_proxy(const plan& p) {
  stet::detail::worker& w = the_server->worker;
  int fds[2];
  require(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) == 0, "socketpair()");
  ::fcntl(fds[1], F_SETFL, ::fcntl(fds[1], F_GETFL) | O_NONBLOCK);
  boost::asio::local::stream_protocol::socket server_end(w.io());
  server_end.assign(boost::asio::local::stream_protocol(), fds[0]);
  stet::detail::start_proxy_intake(w, std::move(server_end), stet::endpoint::unix_socket(), nullptr);
  outcome o;
  bool ended = false;
  std::size_t offset = 0;
  for (const std::size_t piece : p.pieces) {
    std::string_view rest = p.payload.substr(offset, piece);
    offset += piece;
    while (!rest.empty() && !ended) {
      const ssize_t n = ::send(fds[1], rest.data(), rest.size(), MSG_NOSIGNAL);
      if (n > 0) {
        rest.remove_prefix(static_cast<std::size_t>(n));
      } else if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
        break;  // the server closed: the rest is not wanted
      } else {
        ended = stet::fuzz::pump(w.io(), fds[1], o.received, p.payload);
      }
    }
    if (p.catch_up) ended = stet::fuzz::pump(w.io(), fds[1], o.received, p.payload) || ended;
  }
  ::shutdown(fds[1], SHUT_WR);
  o.closed = stet::fuzz::pump(w.io(), fds[1], o.received, p.payload) || ended;
  ::close(fds[1]);
  return o;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  the_server = new server_state;
  the_worker = &the_server->worker;
  the_worker->enter_thread();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const plan p = read_plan(data, size);
  stet::response_cache& cache = *the_server->cache;
  const stet::response_cache_stats emptied = cache.stats();
  require(emptied.entries == 0 && emptied.bytes == 0, "invalidate_all() leaves nothing stored or charged");
  const outcome o = p.proxy ? run_proxy(p) : run_memory(p);
  require(cache.stats().bytes <= cache_budget, "the response cache stays within its byte budget", p.payload);
  // Emptied now rather than before the next input: an input then frees what
  // it allocated, and libFuzzer does not run it again to look for a leak.
  cache.invalidate_all();
  require(o.closed, "the server closes the connection after the client's last byte", p.payload);

  stet::fuzz::wire_reader reader(o.received);
  const std::optional<stet::fuzz::wire_reading> r = reader.read();
  if (!r) {
    std::fprintf(stderr, "fuzz: %s\n", reader.why());
    require(false, "complete, well-framed responses, then well-formed frames after a 101", o.received);
  }
  // FUZZ_SERVER_TRACE=1: what each input got, to see what a seed reaches;
  // FUZZ_SERVER_TRACE=2: the bytes too.
  static const char* const trace = std::getenv("FUZZ_SERVER_TRACE");
  if (trace != nullptr) {
    if (std::string_view(trace) == "2") std::fwrite(o.received.data(), 1, o.received.size(), stderr);
    std::fprintf(stderr, "fuzz: %zu bytes in %zu pieces%s -> %zu bytes out, statuses", p.payload.size(),
                 p.pieces.size(), p.proxy ? " (PROXY)" : "", o.received.size());
    for (const unsigned status : r->statuses) std::fprintf(stderr, " %u", status);
    std::fprintf(stderr, "%s, %zu frames%s\n", r->upgraded ? ", upgraded" : "", r->frames,
                 r->close_frame ? ", close frame" : "");
  }
  for (const unsigned status : r->statuses) require(status != 500, "no 500 from handlers that never throw", p.payload);
  require(r->statuses.size() <= count_heads(p.payload) + 1, "no more answers than requests", p.payload);
  return 0;
}
