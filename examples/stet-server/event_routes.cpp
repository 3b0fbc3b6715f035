#include "event_routes.hpp"

#include "websocket_routes.hpp"

#include <stet/events.hpp>
#include <stet/request.hpp>
#include <stet/response.hpp>
#include <stet/routing.hpp>

#include <cstdint>
#include <memory>
#include <string_view>

namespace stet_server {
namespace {

constexpr std::size_t max_room_bytes = 64;  // as /ws/chat/{room}

// A WebSocket text frame must be UTF-8, and a browser drops the socket that
// receives one that is not: a POSTed message is checked before it reaches
// the room's WebSocket members.
bool is_utf8(std::string_view s) noexcept {
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    std::size_t n = 0;
    std::uint32_t cp = 0;
    if (c < 0x80) {
      ++i;
      continue;
    } else if ((c & 0xE0) == 0xC0) {
      n = 1, cp = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
      n = 2, cp = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
      n = 3, cp = c & 0x07;
    } else {
      return false;
    }
    if (i + n >= s.size()) return false;  // cut short
    for (std::size_t k = 1; k <= n; ++k) {
      const auto d = static_cast<unsigned char>(s[i + k]);
      if ((d & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (d & 0x3F);
    }
    // Overlong forms, surrogates and code points past U+10FFFF are not UTF-8.
    static constexpr std::uint32_t least[] = {0, 0x80, 0x800, 0x10000};
    if (cp < least[n] || (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF) return false;
    i += n + 1;
  }
  return true;
}

stet::response refuse(stet::status s, std::string_view why) { return stet::response::text(why, s); }

}  // namespace

void add_event_routes(stet::router& routes, const std::vector<std::string>& cors_origins,
                      std::chrono::milliseconds lifetime) {
  stet::event_stream_options stream;
  stream.max_lifetime = lifetime;
  routes.get("/events/chat/{room}", [stream](stet::request& req, std::string_view room) {
    if (room.size() > max_room_bytes) return stet::response::text("room name too long", stet::status::bad_request);
    return stet::topic_stream(req, "chat/" + std::string(room), stream);
  });

  stet::route_options post;
  post.max_body_bytes = max_chat_message_bytes;
  auto listed = std::make_shared<const std::vector<std::string>>(cors_origins);
  routes.post("/chat/{room}", post, [listed](stet::request& req, std::string_view room) {
    // A page on another site could post here with a simple request (no
    // preflight): the same origin rule as the room's WebSocket keeps it out.
    if (!websocket_origin_allowed(req, *listed)) return refuse(stet::status::forbidden, "origin not allowed");
    if (room.size() > max_room_bytes) return refuse(stet::status::bad_request, "room name too long");
    if (!is_utf8(req.body())) return refuse(stet::status::bad_request, "the message must be UTF-8 text");
    stet::publish("chat/" + std::string(room), req.body());
    return stet::response(stet::status::accepted);
  });
}

}  // namespace stet_server
