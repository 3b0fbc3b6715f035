#pragma once
// The hand-over of an accepted upgrade: what the 101 carries from the route's
// handler (which runs in the router, with the request) to the session that
// takes the connection over (which starts once the 101 is written).

#include <stet/detail/websocket_core.hpp>

#include "websocket/deflate_offer.hpp"
#include "websocket/handshake.hpp"

#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace stet::detail {

struct websocket_upgrade {
  std::shared_ptr<const websocket_route_base> route;
  std::unique_ptr<websocket_user_data> data;
  ws::accept_key accept{};
  std::string_view protocol;  ///< into route->options().subprotocols; empty for none
  std::optional<ws::deflate_agreement> deflate;
};

namespace ws {

/// Appends the 101 head for `up` to `out`: the status line, Upgrade,
/// Connection, Sec-WebSocket-Accept, the agreed Sec-WebSocket-Protocol and
/// -Extensions, then `fields` (the response's own serialised fields: what
/// middleware or the upgrade step added, e.g. Set-Cookie) and the empty line.
void append_switching_head(std::string& out, const websocket_upgrade& up, std::string_view fields);

/// The zlib settings a route's options ask for.
deflate_settings deflate_settings_of(const websocket_compression_options& c) noexcept;

}  // namespace ws
}  // namespace stet::detail
