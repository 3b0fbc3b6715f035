#pragma once
// GET /ws/echo and GET /ws/chat/{room}: the example server's WebSockets.

#include <stet/router.hpp>

namespace stet_server {

/// Adds /ws/echo (every message sent back with its opcode) and
/// /ws/chat/{room} (every text message published to the room's topic, the
/// sender included; binary messages are refused with 1003).
void add_websocket_routes(stet::router& routes);

}  // namespace stet_server
