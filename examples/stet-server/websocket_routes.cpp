#include "websocket_routes.hpp"

#include <stet/cors.hpp>
#include <stet/websocket.hpp>

#include <algorithm>
#include <cctype>
#include <memory>
#include <optional>
#include <string>
#include <variant>

namespace stet_server {

namespace {

// A chat connection's user data: its room's topic, built once at the upgrade.
struct chat_member {
  std::string topic;
};

bool same_text(std::string_view a, std::string_view b) noexcept {
  return std::ranges::equal(a, b, [](char x, char y) {
    return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
  });
}

struct host_port {
  std::string_view host;  // a name, an IPv4 address or a bracketed IPv6 literal
  std::string_view port;  // digits; the scheme's default when absent
};

// "host[:port]" (RFC 3986 authority without userinfo, as Host and Origin carry it).
std::optional<host_port> split_authority(std::string_view authority, std::string_view scheme) {
  const std::size_t bracket = authority.rfind(']');
  const std::size_t colon = authority.rfind(':');
  const bool has_port = colon != std::string_view::npos && (bracket == std::string_view::npos || colon > bracket);
  host_port out{authority.substr(0, has_port ? colon : authority.size()), {}};
  if (has_port) out.port = authority.substr(colon + 1);
  if (out.port.empty()) out.port = same_text(scheme, "https") ? "443" : "80";
  if (out.host.empty() || !std::ranges::all_of(out.port, [](char c) { return c >= '0' && c <= '9'; })) {
    return std::nullopt;
  }
  return out;
}

// RFC 6454: the same scheme, host and port as the request was sent to.
bool is_own_origin(std::string_view origin, const stet::request& req) {
  const std::size_t sep = origin.find("://");
  if (sep == std::string_view::npos || !same_text(origin.substr(0, sep), req.scheme())) return false;
  const auto theirs = split_authority(origin.substr(sep + 3), req.scheme());
  const auto ours = split_authority(req.host(), req.scheme());
  return theirs && ours && same_text(theirs->host, ours->host) && theirs->port == ours->port;
}

// The --cors-origin list as a stet::cors matcher, or null without the flag.
std::shared_ptr<const stet::cors> cors_matcher(const std::vector<std::string>& cors_origins) {
  if (cors_origins.empty()) return nullptr;
  stet::cors_options o;
  o.origins = cors_origins;
  return std::make_shared<const stet::cors>(o);
}

bool allowed(const stet::request& req, const stet::cors* listed) {
  std::optional<std::string_view> origin;
  for (const stet::header_field& f : req.header_fields()) {
    if (!same_text(f.name, "origin")) continue;
    if (origin) return false;  // a browser sends one; two are not a browser's to trust
    origin = f.value;
  }
  if (!origin) return true;
  return is_own_origin(*origin, req) || (listed != nullptr && listed->allows_origin(*origin));
}

}  // namespace

bool websocket_origin_allowed(const stet::request& req, const std::vector<std::string>& cors_origins) {
  return allowed(req, cors_matcher(cors_origins).get());
}

void add_websocket_routes(stet::router& routes, const std::vector<std::string>& cors_origins,
                          std::uint64_t budget_bytes) {
  // Built once: each upgrade only matches against it.
  std::shared_ptr<const stet::cors> listed = cors_matcher(cors_origins);

  stet::websocket_options echo;
  echo.max_message_bytes = std::size_t{16} << 20;
  echo.compression.enabled = true;
  // Messages in flight on every echo connection together: an open fragment
  // holds what it has sent so far, so without a budget 40 clients could pin
  // 40 x 16 MiB. Past it a message closes its connection with 1013.
  echo.max_total_message_bytes = budget_bytes;
  routes.websocket("/ws/echo", echo,
                   stet::websocket_handlers<>{.message = [](stet::websocket<>& ws, std::string_view message,
                                                            stet::message_kind kind) { ws.send(message, kind); }},
                   [listed](stet::request& req) -> stet::upgrade_result<std::monostate> {
                     if (!allowed(req, listed.get())) return stet::status::forbidden;
                     return std::monostate{};
                   });

  stet::websocket_options chat;
  chat.max_message_bytes = 64 * 1024;
  chat.max_total_message_bytes = budget_bytes;
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
                   [listed](stet::request& req, std::string_view room) -> stet::upgrade_result<chat_member> {
                     if (!allowed(req, listed.get())) return stet::status::forbidden;
                     if (room.size() > 64) return stet::status::bad_request;
                     return chat_member{"chat/" + std::string(room)};
                   });
}

}  // namespace stet_server
