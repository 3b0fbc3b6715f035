#pragma once
// The routes of the hand-over tests (unit and integration): a streaming PUT
// whose sink counts the body, a WebSocket echo, and /healthz. A streaming
// route grows the connection's read buffer to head + 64 KiB, which is what
// the bytes behind a later upgrade must survive.

#include <stet/body.hpp>
#include <stet/router.hpp>
#include <stet/websocket.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace stet::test {

/// Counts the body; answers its size.
class counting_sink final : public body_sink {
 public:
  body_flow on_data(std::string_view piece) override {
    bytes_ += piece.size();
    return body_flow::more;
  }
  response on_end() override { return response::text(std::to_string(bytes_)); }
  void on_abort(std::error_code) noexcept override {}

 private:
  std::uint64_t bytes_ = 0;
};

/// PUT /upload (streamed), `echo_path` (WebSocket echo), GET /healthz.
inline router handover_routes(std::string_view echo_path) {
  router r;
  route_options streamed;
  streamed.stream_body = true;
  r.put("/upload", streamed, [](request&) { return read_body(std::make_unique<counting_sink>()); });
  r.websocket(
      std::string(echo_path), websocket_options{},
      websocket_handlers<>{.message = [](websocket<>& ws, std::string_view m, message_kind k) { ws.send(m, k); }});
  r.get("/healthz", [](request&) { return response::text("ok"); });
  return r;
}

}  // namespace stet::test
