// websocket_chat: one chat room over WebSocket. `/` is the page, `/chat` the
// WebSocket route; every member subscribes to one topic, and each message is
// published to it: built once, sent to every member on every worker thread.
// Run: websocket_chat [PORT], then open http://localhost:8080/ in two tabs.
#include <stet/stet.hpp>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <string>

namespace {

constexpr std::string_view page = R"(<!doctype html><meta charset=utf-8><title>chat</title>
<ul id=log></ul><form id=f><input id=msg autofocus autocomplete=off> <button>Send</button></form>
<script>
const name = prompt("Your name (letters, digits, - and _)?") || "anonymous";
const ws = new WebSocket(location.origin.replace(/^http/, "ws") + "/chat?name=" + encodeURIComponent(name));
ws.onmessage = (e) => log.appendChild(document.createElement("li")).textContent = e.data;
ws.onclose = (e) => log.appendChild(document.createElement("li")).textContent = "closed: " + (e.reason || e.code);
f.onsubmit = (e) => { e.preventDefault(); ws.send(msg.value); msg.value = ""; };
</script>
)";

constexpr std::string_view room = "room";

// Per connection, kept by the session from the upgrade to the close.
struct member {
  std::string name;
};

// Names go into text messages, which must be UTF-8: ASCII only keeps it so.
bool valid_name(std::string_view name) {
  return !name.empty() && name.size() <= 32 && std::all_of(name.begin(), name.end(), [](unsigned char c) {
    return std::isalnum(c) != 0 || c == '-' || c == '_';
  });
}

// The upgrade step, before the 101: refuse with any answer, or accept with the member's data.
stet::upgrade_result<member> admit(stet::request& req) {
  const std::string_view name = req.query().get("name").value_or("");
  if (!valid_name(name)) return stet::response::text("?name= letters, digits, - and _\n", stet::status::bad_request);
  return member{std::string(name)};
}

}  // namespace

int main(int argc, char** argv) {
  stet::router routes;
  routes.get("/", [](stet::request&) { return stet::response::html(page); });

  // Each callback runs on the member's worker thread; publish() reaches the
  // members on every worker.
  stet::websocket_handlers<member> handlers;
  handlers.open = [](stet::websocket<member>& ws) {
    ws.subscribe(room);  // before the announcement, so the newcomer sees it too
    ws.publish(room, ws.data().name + " joined");
  };
  handlers.message = [](stet::websocket<member>& ws, std::string_view text, stet::message_kind kind) {
    if (kind != stet::message_kind::text) return ws.close(stet::close_code::unsupported_data, "text only");
    ws.publish(room, ws.data().name + ": " + std::string(text));  // text arrives checked as UTF-8
  };
  handlers.close = [](stet::websocket<member>& ws, std::uint16_t /*code*/, std::string_view /*reason*/) {
    ws.publish(room, ws.data().name + " left");  // its own subscription is already gone
  };
  stet::websocket_options chat;
  chat.max_message_bytes = 4096;  // a longer message closes the socket with 1009
  routes.websocket("/chat", chat, std::move(handlers), admit);

  stet::server_options options;
  options.listeners = {{.address = std::string("127.0.0.1:") + (argc > 1 ? argv[1] : "8080")}};
  stet::server server(std::move(routes), options);
  const stet::config_error failed = stet::run_until_signal(server);  // SIGINT or SIGTERM: a graceful stop
  if (failed) std::fprintf(stderr, "websocket_chat: %s\n", failed.message().c_str());
  return failed ? 1 : 0;
}
