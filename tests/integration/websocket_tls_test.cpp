// WebSocket over TLS (wss): the upgrade is an HTTPS request, and after the
// 101 the session runs over the same TLS transport the connection handed
// over: frames both ways, the close handshake, then close_notify.

#include <stet/stet.hpp>

#include "support/test_server.hpp"
#include "support/tls_certs.hpp"
#include "support/tls_client.hpp"
#include "support/tls_server.hpp"
#include "support/ws_client.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <string>

namespace {

using stet::test::take_frame;
using stet::test::tls_client;
using stet::test::ws_frame;
using stet::test::ws::client_frame;
using stet::test::ws::opcode;

stet::router echo_routes() {
  stet::router r;
  stet::websocket_handlers<> echo;
  echo.message = [](stet::websocket<>& ws, std::string_view m, stet::message_kind k) { ws.send(m, k); };
  r.websocket("/echo", stet::websocket_options{}, std::move(echo));
  return r;
}

std::optional<ws_frame> next_frame(tls_client& c) {
  for (;;) {
    if (auto f = take_frame(c.received())) return f;
    if (!c.read_more()) return std::nullopt;
  }
}

TEST(WebsocketTls, EchoAndCloseOverHttps) {
  stet::test::tls_fixture certs;
  const stet::test::cert_files site = certs.issue("site", stet::test::for_names({"localhost"}));
  stet::test::running_server server(echo_routes(), stet::test::tls_server_options(stet::test::tls_settings(site)));
  stet::test::tls_client_options verified;
  verified.ca_file = certs.ca_file();
  tls_client c(server.get().port(1), verified);
  ASSERT_TRUE(c.handshake()) << c.error();
  ASSERT_TRUE(
      c.send("GET /echo HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
             "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"));
  const auto head = c.read_response(true);
  ASSERT_TRUE(head);
  ASSERT_EQ(head->status, 101);
  EXPECT_EQ(head->header("sec-websocket-accept"), "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");

  ASSERT_TRUE(c.send(client_frame(opcode::text, "over tls") + client_frame(opcode::binary, std::string(70'000, 'b'))));
  const auto text = next_frame(c);
  ASSERT_TRUE(text);
  EXPECT_EQ(text->opcode, 1);
  EXPECT_EQ(text->payload, "over tls");
  const auto binary = next_frame(c);
  ASSERT_TRUE(binary);
  EXPECT_EQ(binary->opcode, 2);
  EXPECT_EQ(binary->payload, std::string(70'000, 'b'));

  ASSERT_TRUE(c.send(client_frame(opcode::close, std::string("\x03\xe8", 2))));
  const auto closing = next_frame(c);
  ASSERT_TRUE(closing);
  EXPECT_EQ(closing->opcode, 8);
  EXPECT_EQ(closing->close_code(), 1000);
  EXPECT_TRUE(c.closed_with_notify());
}

}  // namespace
