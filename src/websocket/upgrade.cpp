#include "websocket/upgrade.hpp"

#include "response/response_access.hpp"

#include <array>

namespace stet::detail {

websocket_route_base::websocket_route_base(websocket_options options) : options_(std::move(options)) {
  subprotocols_.assign(options_.subprotocols.begin(), options_.subprotocols.end());
  origins_.assign(options_.allowed_origins.begin(), options_.allowed_origins.end());
}

websocket_route_base::~websocket_route_base() = default;

namespace {

response refusal(ws::handshake_error e) {
  const stet::status s = ws::handshake_status(e);
  response r = response::text(e == ws::handshake_error::origin_refused ? "origin not allowed\n"
                              : s == stet::status::upgrade_required    ? "a WebSocket upgrade is required here\n"
                                                                       : "not a valid WebSocket upgrade\n",
                              s);
  if (s == stet::status::upgrade_required) {
    for (const header_field& f : ws::upgrade_required_fields) response_access::append_trusted_field(r, f.name, f.value);
  }
  return r;
}

}  // namespace

std::optional<response> refuse_websocket_upgrade(const request& req, const websocket_route_base& route) {
  // GET routes answer HEAD too: a HEAD is no upgrade, whatever it carries.
  if (req.method() == stet::method::head) return refusal(ws::handshake_error::no_upgrade);
  const ws::upgrade_check check = ws::check_upgrade_request(req.method(), req.version(), req.header_fields());
  if (!check.ok()) return refusal(check.error);
  const websocket_options& o = route.options();
  const ws::handshake_error origin = ws::check_origin(req.header_fields(), route.origins(), o.require_origin);
  if (origin != ws::handshake_error::none) return refusal(origin);
  return std::nullopt;
}

response accept_websocket_upgrade(const request& req, std::shared_ptr<const websocket_route_base> route,
                                  std::unique_ptr<websocket_user_data> data) {
  auto up = std::make_shared<websocket_upgrade>();
  const std::string_view key = ws::check_upgrade_request(req.method(), req.version(), req.header_fields()).key;
  up->accept = ws::make_accept_key(key);
  up->protocol = ws::select_subprotocol(req.header_fields(), route->subprotocols());
  up->deflate = ws::negotiate_deflate(req.header_fields(), ws::deflate_settings_of(route->options().compression));
  up->route = std::move(route);
  up->data = std::move(data);
  response r(stet::status::switching_protocols);
  response_access::set_upgrade(r, std::move(up));
  return r;
}

namespace ws {

void append_switching_head(std::string& out, const websocket_upgrade& up, std::string_view fields) {
  const std::string_view extensions = up.deflate ? up.deflate->response() : std::string_view{};
  const std::size_t size = switching_protocols_size(up.protocol, extensions);
  const std::size_t at = out.size();
  out.resize(at + size);
  std::size_t written = write_switching_protocols({out.data() + at, size}, up.accept, up.protocol, extensions);
  // Only a subprotocol that is not a valid field value can be refused (the
  // extensions are stet's own text): answer without it, as if none matched.
  if (written == 0) written = write_switching_protocols({out.data() + at, size}, up.accept, {}, extensions);
  out.resize(at + written - 2);  // the empty line goes after the response's own fields
  out.append(fields);
  out.append("\r\n");
}

deflate_settings deflate_settings_of(const websocket_compression_options& c) noexcept {
  deflate_settings s;
  s.enabled = c.enabled;
  s.server_no_context_takeover = c.server_no_context_takeover;
  s.client_no_context_takeover = c.client_no_context_takeover;
  s.server_max_window_bits = c.server_max_window_bits;
  s.client_max_window_bits = c.client_max_window_bits;
  s.level = c.level;
  s.mem_level = c.mem_level;
  return s;
}

}  // namespace ws
}  // namespace stet::detail
