#pragma once
// GET /events/chat/{room} and POST /chat/{room}: the chat rooms of
// /ws/chat/{room} as server-sent events, and a way to speak in them without a
// WebSocket. All three routes share the topic "chat/ROOM".

#include <stet/router.hpp>

#include <chrono>
#include <string>
#include <vector>

namespace stet_server {

/// Largest message POST /chat/{room} takes (a WebSocket chat message's limit too).
inline constexpr std::size_t max_chat_message_bytes = 64 * 1024;

/// Adds GET /events/chat/{room} (the room's messages as `text/event-stream`,
/// resumable with Last-Event-ID) and POST /chat/{room} (publishes the body,
/// UTF-8 text of at most max_chat_message_bytes: 202; refused from a page of
/// another origin, as the WebSocket upgrade is: 403).
/// `lifetime`: event_stream_options::max_lifetime of the streams (0: none).
void add_event_routes(stet::router& routes, const std::vector<std::string>& cors_origins = {},
                      std::chrono::milliseconds lifetime = {});

}  // namespace stet_server
