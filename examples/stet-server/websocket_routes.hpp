#pragma once
// GET /ws/echo and GET /ws/chat/{room}: the example server's WebSockets.

#include <stet/request.hpp>
#include <stet/router.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace stet_server {

/// Whether a WebSocket upgrade may proceed given its Origin: none sent (not a
/// browser), this server's own origin (the scheme, host and port the request
/// came to, from request::scheme() and host(), default ports filled in), or
/// one that `cors_origins` (--cors-origin, matched as stet::cors does, so
/// "*" and subdomain patterns work) allows. A browser page elsewhere cannot
/// open the sockets: a WebSocket is not covered by CORS, so without this check
/// any site a visitor opens could talk to the server with the visitor's cookies.
bool websocket_origin_allowed(const stet::request& req, const std::vector<std::string>& cors_origins);

/// Adds /ws/echo (every message sent back with its opcode) and
/// /ws/chat/{room} (every text message published to the room's topic, the
/// sender included; binary messages are refused with 1003). An upgrade whose
/// Origin websocket_origin_allowed() refuses is answered 403.
void add_websocket_routes(stet::router& routes, const std::vector<std::string>& cors_origins = {},
                          std::uint64_t budget_bytes = std::uint64_t{256} << 20);

}  // namespace stet_server
