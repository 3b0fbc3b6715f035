#pragma once
/// @file
/// Limits, timeouts and listener settings of a stet::server: a plain aggregate.

#include <stet/access_log.hpp>
#include <stet/compression.hpp>
#include <stet/detail/deprecated_field.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

namespace stet {

class metrics;
class readiness;
class tracer;
struct tls_options;

/// Something that went wrong outside any request, so no client can be told:
/// an accept that failed, a stream producer that threw.
struct server_error {
  std::string_view where;   ///< "accept", "stream producer", ...
  std::error_code code;     ///< the system error, when there is one
  std::string_view detail;  ///< what happened, in words (an exception's what(), the error's message)
};

/// One address a server accepts connections on.
struct listen_options {
  /// "HOST:PORT" with an IPv4 literal, "[V6]:PORT" ("[::]:PORT" also takes
  /// IPv4 clients), or "unix:PATH" for a unix-domain socket. Port 0 picks a
  /// free port (see server::port()). Sockets already listening, passed by
  /// systemd socket activation (LISTEN_PID/LISTEN_FDS): "fd:N" takes
  /// descriptor N as it is (TCP or unix, never re-bound or unlinked);
  /// "systemd" stands for every passed socket, "systemd:NAME" for those named
  /// NAME (FileDescriptorName=), each becoming one listener in this place of
  /// the list (start() fails when none was passed). Inherited sockets are
  /// shared by the workers round-robin, whatever reuse_port says.
  std::string address{};
  /// A unix socket's file permissions. A stale socket file left by a crashed
  /// run is replaced; one another process still listens on is an error.
  unsigned unix_mode = 0660;
  /// Every connection must start with a PROXY protocol (v1 or v2) header, as a
  /// layer-4 balancer sends; one that does not is closed.
  bool proxy_protocol = false;
  /// Serve HTTPS on this address with these settings (<stet/tls.hpp>); null,
  /// the default, serves plain HTTP. The options are read once, at start();
  /// server::reload_tls() re-reads the files they name.
  std::shared_ptr<const tls_options> tls{};
};

/// Everything a server can be told before start(). Defaults suit a public-facing
/// service; tests shorten the timeouts.
struct server_options {
  /// Deprecated (#26: listeners is the one way to say where to listen); removed
  /// in the next release. Used only when `listeners` is empty.
  detail::deprecated_host host{};
  /// Deprecated, as `host`.
  detail::deprecated_port port{};
  unsigned threads = 0;     ///< worker threads; 0 means std::thread::hardware_concurrency()
  bool reuse_port = false;  ///< one SO_REUSEPORT acceptor per worker (and TCP listener) instead of one shared acceptor
  /// Where to listen: `{{.address = "127.0.0.1:8080"}}`, several addresses,
  /// unix sockets, TLS, PROXY protocol or sockets passed by systemd (see
  /// listen_options). Empty, the default: one TCP listener on 127.0.0.1:8080.
  std::vector<listen_options> listeners{};
  int backlog = 1024;                ///< listen(2) backlog
  std::string server_name = "stet";  ///< value of the Server header; empty omits the header
  /// Peers whose Forwarded / X-Forwarded-For / -Proto / -Host fields are believed:
  /// IPv4 or IPv6 CIDRs ("10.0.0.0/8", "fd00::/8"), bare addresses (one host),
  /// and `unix` for unix-socket peers. Empty (the default) trusts nobody: the
  /// client is always the socket's peer. A bad entry makes start() fail.
  std::vector<std::string> trusted_proxies{};

  /// Connections open at once, over all workers and listeners. At the limit a
  /// new client makes room: the connection that has waited longest without
  /// sending a complete request is closed (else the oldest idle keep-alive);
  /// only when every connection is busy does accepting pause until one closes.
  std::size_t max_connections = 10000;
  /// Connections open at once from one client address (remote_endpoint(),
  /// after PROXY protocol); beyond it a new one is closed at once. 0 (the
  /// default): no limit. Trusted proxies (trusted_proxies) and unix-socket
  /// peers are exempt: a proxy carries many clients.
  std::size_t max_connections_per_address = 0;
  std::size_t max_header_bytes = 16 * 1024;            ///< request line + header section; over it: 431
  std::size_t max_target_bytes = 8 * 1024;             ///< request-target; over it: 414
  std::size_t max_header_count = 100;                  ///< header fields; over it: 431
  std::size_t max_body_bytes = 1024 * 1024;            ///< request body; over it: 413
  std::size_t max_requests_per_connection = 0;         ///< 0 means unlimited
  std::size_t max_pipeline_output_bytes = 256 * 1024;  ///< pending output before parsing pauses

  std::chrono::milliseconds header_timeout{10'000};  ///< a request's first byte -> complete head; 408
  /// A new connection that has sent nothing yet (not even a PROXY header):
  /// closed silently after this, well before header_timeout.
  std::chrono::milliseconds first_byte_timeout{5'000};
  /// At max_connections only a connection that has waited at least this long
  /// (for its first byte, the rest of its head, or its next request) may be
  /// closed to make room: a younger one is likely a client whose request is
  /// on its way. With none old enough, accepting pauses until one closes.
  std::chrono::milliseconds eviction_grace{1'000};
  std::chrono::milliseconds idle_timeout{5'000};   ///< keep-alive wait for the next request; silent close
  std::chrono::milliseconds body_timeout{30'000};  ///< longest pause between body reads; 408
  std::size_t min_body_rate = 1024;  ///< slow drip: body bytes a second at least, per body_rate_window (0: none); 408
  std::chrono::milliseconds body_rate_window{10000};  ///< the window min_body_rate is averaged over
  std::chrono::milliseconds write_timeout{30'000};    ///< longest a response write may take; close
  std::chrono::milliseconds linger_timeout{2'000};    ///< draining unread input before closing after an error
  std::chrono::milliseconds drain_timeout{10'000};    ///< graceful stop: in-flight requests get this long
  /// Graceful stop's first stage: readiness turns false at once, but the server
  /// keeps accepting and serving for this long, while balancers notice; then
  /// accepting stops and drain_timeout begins. 0 (the default): no delay.
  std::chrono::milliseconds drain_delay{0};
  /// The longest wait for an asynchronous handler's responder::send() or a
  /// suspended coroutine handler's co_return; then 503 and close (the
  /// coroutine is cancelled).
  std::chrono::milliseconds handler_timeout{30'000};

  /// Threads of the blocking pool behind stet::offload, shared by all workers
  /// and started by the first offload; 0: every offload is refused (503).
  unsigned offload_threads = 4;
  /// Offloaded calls waiting for a pool thread, at most: one more is refused
  /// at once (offload_rejected; 503 with Retry-After), never queued.
  std::size_t offload_queue = 1024;
  /// The Retry-After of that 503.
  std::chrono::seconds offload_retry_after{1};

  /// What other threads may leave waiting for one worker's WebSocket
  /// sessions, at most: publishes from sessions on other workers and from
  /// server::publish() (one entry per publish, however many subscribers),
  /// and websocket_handle::send() calls. Past either bound a post is dropped
  /// and counted (stet_websocket_mailbox_dropped_total): that publish misses
  /// this worker's subscribers, that send() reports send_status::dropped.
  std::size_t websocket_mailbox_messages = 4096;
  /// The same in bytes (payloads plus about 128 bytes each); one larger
  /// message is still taken when nothing else waits.
  std::size_t websocket_mailbox_bytes = 8 * 1024 * 1024;

  /// Where published topic messages travel (server::publish, WebSocket and
  /// SSE subscribers). Empty (the default): within this process.
  /// "redis://HOST:PORT" (port default 6379): through that Redis, so every
  /// instance connected to it delivers every topic's messages, in one order,
  /// with one shared history. start() fails on a value it cannot read; a
  /// Redis that is not there yet does not stop it (see docs/pubsub-redis.md).
  std::string pubsub{};

  access_log_options access_log{};    ///< off by default
  compression_options compression{};  ///< response compression and coded request bodies (off by default)

  /// Where the server counts requests, connections and phase timings; null counts nothing.
  std::shared_ptr<stet::metrics> metrics{};
  /// Told when the server is ready (start) and when it stops being (a stop
  /// began), for a readiness route; null: nobody is told (see server::ready()).
  std::shared_ptr<stet::readiness> readiness{};
  /// Receives phase spans; null (the default) costs one branch per request.
  std::shared_ptr<stet::tracer> tracer{};
  /// Adds `Server-Timing: parse;dur=..., handler;dur=...` to every response.
  bool server_timing = false;
  /// Told of every server_error, on the thread where it happened (a worker's),
  /// so it must be thread-safe and quick. Null, the default, reports nothing:
  /// the library never writes to stderr by itself.
  std::function<void(const server_error&)> error_reporter{};
};

}  // namespace stet
