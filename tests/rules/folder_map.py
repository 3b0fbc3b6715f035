"""The map of src/: one row per folder, saying what is there and which other
folders it may include. tests/rules/include_rules.py refuses any include
between folders that this table does not allow, and writes the folder table of
docs/architecture.md from it (--write-docs; ctest checks that the page matches).

What a folder is: the first directory under src/ (`src/route/match.cpp` is in
`route`; `src/response/compress/` and `src/response/json/` are rooms of
`response`, `src/request/multipart/` of `request`: parts of one step, not steps
of their own), except that each directory directly under src/net/ is a folder
of its own (`net/accept`, `net/http1`, ...): "net" only says "compiled with
Asio", and its subfolders are five different steps. Files directly in src/net/
(`asio.hpp`) form the folder `net`.

Rows are in the order of the request's path (the table reads socket to socket);
`may_include` says the intended architecture, and data flows one way: socket ->
connection -> parser -> request -> router -> handler -> response -> writer. A
folder may include only folders lower in the include order (the order line of
the page is computed from the includes), except the arrows named in BACK_EDGES.
To add an arrow, add it here with the reason in the row, then run
`tests/rules/include_rules.py --write-docs`.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Folder:
    name: str  # as folder() names it: "route", "net/http1"
    step: str  # the step of the path it holds (the table's first column)
    holds: str  # what is there (Markdown); every `snake_name` in backticks must be one of its files
    may_include: tuple[str, ...] = ()  # the other folders it may include


def folder(path: str) -> str | None:
    """The folder of a repository path, or None outside src/ (see the module's doc)."""
    parts = path.split("/")
    if parts[0] != "src" or len(parts) < 3:
        return None
    if parts[1] == "net" and len(parts) > 3:
        return f"net/{parts[2]}"
    return parts[1]


FOLDERS = (
    Folder("net/server", "start, threads, stop",
           "`server_core` (binds every listener, starts the workers, the stop sequence; its TLS side: "
           "`server_tls.cpp`), `worker` (one thread and its io_context, the exchange pool), `deadline_set` (the worker's "
           "timeouts, HTTP and WebSocket alike, on one timer: lists of `deadline_list`), `worker_executor` (resumes suspended coroutine handlers on the worker's loop)",
           ("net", "net/accept", "net/http1", "net/transport", "net/ws", "coro", "counters", "events", "http", "log",
            "metrics", "pubsub", "request", "route", "tls", "websocket", "cache")),
    Folder("process", "the process",
           "`run_until_signal.cpp` (`<stet/run.hpp>`): starts a server, waits for SIGINT or SIGTERM (a pipe "
           "written by a signal handler), stops it in stages; a SIGHUP hook. Public headers only, no Asio"),
    Folder("net/accept", "accept",
           "`listener` (TCP v4/v6 and unix sockets, handed round-robin to the workers; `native_accept`: accept4 "
           "on Asio's reactor), PROXY protocol intake "
           "(`proxy_intake`, parsed by `proxy_protocol`), `socket_activation` (listeners passed by systemd), "
           "`address_counts` (connections per client address)",
           ("net", "net/server", "net/transport", "http", "tls")),
    Folder("net/transport", "read, write",
           "the transport seam `transport.hpp`; `socket_transport` (TCP and unix; `socket_read` is its read "
           "operation), `tls_transport` (a TLS session over another transport). The in-memory transport of the "
           "tests and fuzz targets lives in tests/support/, outside libstet",
           ("net", "tls")),
    Folder("tls", "TLS, without sockets",
           "`tls_context` (the OpenSSL contexts of a listener, built once), `sni_table`, `ticket_keys`, "
           "`tls_service` (contexts over reloads), `tls_engine` (one session over memory), `record_buffers`, "
           "`tls_files` (certificates and keys read with errors in words), `tls_stats`",
           ("metrics",)),
    Folder("net/http1", "the connection",
           "`connection` (the HTTP/1.1 state machine only), `connection_body.cpp` (per-route body limits, "
           "100-continue, streamed bodies), `connection_write.cpp` (answers out, the upgrade hand-off), `connection_park.cpp` (a "
           "streamed answer waiting for events), `exchange` "
           "(what a busy connection borrows: read buffer, parser, request, arena, output queue), `request_assembly` "
           "(a parsed head becomes the request, once), `output_queue` (out buffer, attached bodies, gather write, "
           "sendfile), `stream_pump` (a streamed answer, piece by piece), `exchange_observer` (timings, route "
           "counters, Server-Timing, the access log)",
           ("net/server", "net/transport", "net/ws", "counters", "events", "http", "log", "metrics", "request",
            "response", "route", "websocket")),
    Folder("http", "wire protocol",
           "`request_parser` (llhttp, limits, framing rules), `target` (path/query/absolute-form splitting), "
           "`response_writer` (status line, Date, Content-Length, chunk framing), `date_cache`, `conditional` "
           "(validators), `method`, `status`, `error`, `token`, `percent`, `host_syntax`, `qvalue`, `base64url`, "
           "`output_room` (growing a string a compression library writes into)"),
    Folder("request", "the request",
           "`request` and its memos (`headers`, `cookies`, query, `form`, `json_body`, forwarded/client address via "
           "`proxy_trust`), the cookie LRU (`cookie_cache`), the header-name cache (`header_names`), `arena`, "
           "`test_request`, `multipart/` (the streaming multipart parser), `upload_file`, `body_decoder` (request "
           "bodies sent with Content-Encoding), `endpoint`",
           ("counters", "crypto", "http")),
    Folder("route", "routing",
           "patterns compiled at `add()` (`pattern`), the trie (`table`), `match`, `dispatch` "
           "(404/405/HEAD/OPTIONS/middleware) and what it returns (`outcome`), asynchronous answers "
           "(`pending_response`), streamed bodies (`body.cpp`), coroutine handlers (`coro_root`, `coro_body`), "
           "`url_for`, the table swapped atomically (`state`, `epoch`)",
           ("coro", "http", "request", "response")),
    Folder("cache", "answers derived once",
           "the response cache behind `<stet/response_cache.hpp>` (`response_cache.cpp`): a route's binding "
           "(`cached_route`, reached from dispatch through `route/cache_seam.hpp`), its key (`cache_key`), the "
           "sharded LRU with single flights (`entry_table`, `cache_entry`), invalidation epochs "
           "(`invalidation_log`), the never-stored rules (`store_rules`), answers from an entry with 304/206 "
           "(`hit_answer`), compressed variants made once (`entry_variants`), requests waiting for a run "
           "(`cache_waiter`), background refreshes (`refresher`, `refresh.cpp`; `refresh_gate`: none outlives its route), streamed answers teed "
           "(`stream_tee.cpp`), the store (`response_store`), the paths they share (`cache_flow`) and its metrics "
           "(`response_cache_metrics.cpp`), invalidations carried to every instance on a server's bus (`cache_bus`, "
           "`invalidation_message`)",
           ("coro", "crypto", "http", "metrics", "pubsub", "request", "response", "route")),
    Folder("coro", "coroutine handlers",
           "the executor seam (`executor`), the recycling frame pool (`frame_pool`), `timer_heap`, `sleep.cpp`, "
           "`future.cpp`, the offload pool behind `stet::offload` (`offload_pool`, `offload.cpp`), `local_loop` "
           "(an executor for a thread that is not a worker)",
           ("counters",)),
    Folder("middleware", "shipped middleware",
           "CORS (`cors`, `cors_policy`), the redirect to HTTPS (`https.cpp`)",
           ("http", "request", "response")),
    Folder("static", "static files",
           "safe paths (`safe_path`), the stat-validated file cache and store (`file_cache`, `file_store`, "
           "`root_dir`; `file_watch`: inotify, so a hit needs no stat), content hashes (`content_hash`, `background_hasher`), precompressed siblings "
           "(`file_variants.cpp`, `variant_choice`, `encoding`), file responses with ranges (`file_response`), the "
           "mount on the router (`mount.cpp`), `mime_table`, `favicon`",
           ("counters", "crypto", "http", "request", "response")),
    Folder("status", "status page",
           "`status_page.cpp` (GET /-/status and its JSON): the HTML built once (`status_html`), the data written "
           "from a metrics snapshot (`status_json`)",
           ("crypto", "http", "metrics", "request")),
    Folder("response", "the response",
           "`response` and its pooled strings (`pooled_string`), Set-Cookie (`set_cookie`, `response_cookies.cpp`), "
           "error pages (`error_pages`) and Accept negotiation (`accept`), redirects (`redirect`), `readiness`, "
           "`json/` (the writer), `compress/` (Accept-Encoding memo, policy, pooled gzip/br/zstd encoders)",
           ("counters", "http", "request")),
    Folder("websocket", "WebSocket protocol",
           "RFC 6455 and 7692 without sockets: frame codec (`frame_parser`, `frame_writer`, `unmask`), "
           "`message_reader`, `handshake` and `upgrade`, permessage-deflate (`deflate_offer`, `deflate_stream`, "
           "`deflate_pool`), the session (`session`, `send_queue`), `topic_table`, `utf8`",
           ("counters", "http", "metrics", "response")),
    Folder("net/ws", "WebSocket sessions",
           "`websocket_connection` (the transport the connection handed over after the 101, gather writes), "
           "`websocket_worker` (a worker's sessions, read buffers and timers, its topic tables), `topic_hub` (one "
           "hub for WebSocket and event-stream topics: publishes through the bus, deliveries built once and fanned "
           "out across workers), `event_members` (a worker's event streams by topic), `websocket_mailbox` (what "
           "other threads post to a worker's sessions and streams)",
           ("net", "net/server", "net/transport", "counters", "events", "metrics", "pubsub", "websocket")),
    Folder("events", "server-sent events",
           "`text/event-stream` without sockets: the wire form (`event_format`), a stream's bounded queue "
           "(`event_queue`: overflow ends the stream with a retry hint; replay before live events), "
           "`event_stream.cpp` (`<stet/events.hpp>`: the producer that parks its connection while no event "
           "waits, the channel), the seams to the worker's topics (`event_topics`) and to the connection "
           "(`stream_parking`), `event_stats`",
           ("pubsub",)),
    Folder("pubsub", "topics across instances",
           "the seam between the topic hub and where a published message travels (`bus`): ids, order and "
           "history per topic come from the bus, in-process (`in_process_bus`: per-topic counters, bounded "
           "history) or Redis; the choice from `server_options::pubsub` "
           "(`make_bus`, `redis_url`); the Redis bus's options and factory (`redis_bus`, built in `net/redis`), "
           "its ids (`stream_id`); the library's reserved topics on the same bus (`internal_topics`)",
           ("counters",)),
    Folder("net/redis", "Redis",
           "the Redis bus (`redis_bus.cpp`): a thread and io_context of its own, a command connection and a "
           "subscriber connection (`redis_link`: reconnects with backoff and jitter), hiredis driven by Asio "
           "(`hiredis_asio`), its Lua scripts (`redis_scripts`) and replies (`redis_replies`)",
           ("net", "pubsub")),
    Folder("crypto", "hashing and signing",
           "SHA-256 (`sha256`), HMAC (`hmac`), `signer` (derived keys cached per signer)",
           ("counters", "http")),
    Folder("log", "logging",
           "the access log (`access_log`: per-worker batches; `access_log_sink`: one writer thread), `sigpipe`"),
    Folder("counters", "counting",
           "per-thread memo counters (`memo_stats`), the one counter-add helper pair (`counter_add`), "
           "`latency_histogram.cpp`: the lowest folder, so every cache may count"),
    Folder("metrics", "metrics",
           "Prometheus exposition (`exposition`, `metrics.cpp`) of requests, phases (`phase_record`), routes "
           "(`route_metrics`), every cache family (`cache_families`, `cache_metrics`, `static_metrics.cpp`), "
           "WebSocket and offload figures (`websocket_metrics`, `offload_metrics`), topics and event streams "
           "(`pubsub_metrics`), what a worker counts "
           "(`worker_counters`), the `snapshot` the status page reads too, `versions.cpp`",
           ("coro", "counters", "crypto", "events", "pubsub", "route")),
    Folder("net", "Asio",
           "`asio.hpp`: the one Asio include, and the precompiled header of everything under src/net/"),
)

# Arrows up the include order, allowed by name: each step under src/net/ reaches
# the worker that owns it (its pools, its deadline lists, its counters) while
# the server includes every step to start it.
BACK_EDGES = {
    ("net/accept", "net/server"): "an intake is on its worker's deadline lists; a listener hands sockets to workers",
    ("net/http1", "net/server"): "a connection borrows its exchange from its worker and sits on its deadline lists",
    ("net/ws", "net/server"): "a session takes read buffers and timers from its worker",
}
