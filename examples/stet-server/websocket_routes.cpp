#include "websocket_routes.hpp"

#include <stet/websocket.hpp>

#include <string>

namespace stet_server {

namespace {

// A chat connection's user data: its room's topic, built once at the upgrade.
struct chat_member {
  std::string topic;
};

}  // namespace

void add_websocket_routes(stet::router& routes) {
  stet::websocket_options echo;
  echo.max_message_bytes = std::size_t{16} << 20;
  echo.compression.enabled = true;
  routes.websocket("/ws/echo", echo,
                   stet::websocket_handlers<>{.message = [](stet::websocket<>& ws, std::string_view message,
                                                            stet::message_kind kind) { ws.send(message, kind); }});

  stet::websocket_options chat;
  chat.max_message_bytes = 64 * 1024;
  routes.websocket("/ws/chat/{room}", chat,
                   stet::websocket_handlers<chat_member>{
                       .open = [](stet::websocket<chat_member>& ws) { ws.subscribe(ws.data().topic); },
                       .message =
                           [](stet::websocket<chat_member>& ws, std::string_view message, stet::message_kind kind) {
                             if (kind != stet::message_kind::text) {
                               ws.close(stet::close_code::unsupported_data, "text messages only");
                               return;
                             }
                             ws.publish(ws.data().topic, message);
                           }},
                   [](stet::request&, std::string_view room) -> stet::upgrade_result<chat_member> {
                     if (room.size() > 64) return stet::status::bad_request;
                     return chat_member{"chat/" + std::string(room)};
                   });
}

}  // namespace stet_server
