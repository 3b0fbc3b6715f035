// The upgrade handshake (RFC 6455 4.2): request checks with the status each
// refusal answers, Sec-WebSocket-Accept, subprotocols, Origin and the 101 head.
#include "websocket/handshake.hpp"

#include "support/alloc_counter.hpp"

#include <gtest/gtest.h>

#include <array>
#include <string>
#include <vector>

namespace {

using namespace stet::detail::ws;
using stet::header_field;
using stet::method;
using stet::status;

constexpr std::string_view sample_key = "dGhlIHNhbXBsZSBub25jZQ==";  // RFC 6455 1.3

std::vector<header_field> upgrade_fields() {
  return {{"Host", "server.example.com"},
          {"Upgrade", "websocket"},
          {"Connection", "Upgrade"},
          {"Sec-WebSocket-Key", sample_key},
          {"Sec-WebSocket-Version", "13"}};
}

std::vector<header_field> with(std::vector<header_field> fields, header_field extra) {
  fields.push_back(extra);
  return fields;
}

std::vector<header_field> without(std::vector<header_field> fields, std::string_view name) {
  std::erase_if(fields, [&](const header_field& f) { return f.name == name; });
  return fields;
}

std::vector<header_field> replaced(std::vector<header_field> fields, std::string_view name, std::string_view value) {
  for (header_field& f : fields) {
    if (f.name == name) f.value = value;
  }
  return fields;
}

upgrade_check check(const std::vector<header_field>& fields, method m = method::get, unsigned version = 11) {
  return check_upgrade_request(m, version, fields);
}

TEST(WebsocketHandshake, AcceptsRfc6455Sample) {
  const upgrade_check c = check(upgrade_fields());
  EXPECT_TRUE(c.ok());
  EXPECT_EQ(c.key, sample_key);
  EXPECT_EQ(c.status(), status::switching_protocols);
}

TEST(WebsocketHandshake, ComputesTheSampleAcceptKeyWithoutAllocating) {
  stet::test::allocation_scope scope;
  const accept_key accept = make_accept_key(sample_key);
  EXPECT_EQ(scope.count(), 0u);
  EXPECT_EQ(std::string_view(accept.data(), accept.size()), "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
  // Another key (from a browser's handshake), checked against a known answer.
  const accept_key other = make_accept_key("x3JJHMbDL1EzLkh9GBhXDw==");
  EXPECT_EQ(std::string_view(other.data(), other.size()), "HSmrc0sMlYUkAGmm5OPpG2HaGWk=");
}

TEST(WebsocketHandshake, TokensAreCaseInsensitiveAndMayBeInLists) {
  auto fields = replaced(upgrade_fields(), "Upgrade", "h2c, WebSocket");
  fields = replaced(fields, "Connection", "keep-alive, UPGRADE");
  EXPECT_TRUE(check(fields).ok());
  // Connection split over two fields.
  auto split = replaced(upgrade_fields(), "Connection", "keep-alive");
  split.push_back({"connection", "upgrade"});
  EXPECT_TRUE(check(split).ok());
  // Field names in any case.
  std::vector<header_field> lower = {{"upgrade", "websocket"},
                                     {"CONNECTION", "upgrade"},
                                     {"sec-websocket-key", sample_key},
                                     {"SEC-WEBSOCKET-VERSION", "13"}};
  EXPECT_TRUE(check(lower).ok());
}

TEST(WebsocketHandshake, RefusalsAnswerTheirStatus) {
  struct refusal {
    const char* what;
    upgrade_check result;
    handshake_error error;
    status answer;
  };
  const std::vector<refusal> table = {
      {"POST", check(upgrade_fields(), method::post), handshake_error::not_get, status::bad_request},
      {"HTTP/1.0", check(upgrade_fields(), method::get, 10), handshake_error::not_http11, status::bad_request},
      {"no Upgrade", check(without(upgrade_fields(), "Upgrade")), handshake_error::no_upgrade,
       status::upgrade_required},
      {"Upgrade: h2c", check(replaced(upgrade_fields(), "Upgrade", "h2c")), handshake_error::no_upgrade,
       status::upgrade_required},
      {"websocket as a substring", check(replaced(upgrade_fields(), "Upgrade", "websockets")),
       handshake_error::no_upgrade, status::upgrade_required},
      {"no Connection", check(without(upgrade_fields(), "Connection")), handshake_error::no_upgrade,
       status::upgrade_required},
      {"Connection: keep-alive", check(replaced(upgrade_fields(), "Connection", "keep-alive")),
       handshake_error::no_upgrade, status::upgrade_required},
      {"no version", check(without(upgrade_fields(), "Sec-WebSocket-Version")), handshake_error::unsupported_version,
       status::upgrade_required},
      {"version 8", check(replaced(upgrade_fields(), "Sec-WebSocket-Version", "8")),
       handshake_error::unsupported_version, status::upgrade_required},
      {"versions 13 and 8", check(with(upgrade_fields(), {"Sec-WebSocket-Version", "8"})),
       handshake_error::unsupported_version, status::upgrade_required},
      {"no key", check(without(upgrade_fields(), "Sec-WebSocket-Key")), handshake_error::bad_key, status::bad_request},
      {"two keys", check(with(upgrade_fields(), {"Sec-WebSocket-Key", sample_key})), handshake_error::bad_key,
       status::bad_request},
      {"key of 15 bytes", check(replaced(upgrade_fields(), "Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25j")),
       handshake_error::bad_key, status::bad_request},
      {"key of 17 bytes", check(replaced(upgrade_fields(), "Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQE=")),
       handshake_error::bad_key, status::bad_request},
      {"key not base64", check(replaced(upgrade_fields(), "Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25j*Q==")),
       handshake_error::bad_key, status::bad_request},
      {"key base64url", check(replaced(upgrade_fields(), "Sec-WebSocket-Key", "dGhlIHNhbXBs_SBub25jZQ==")),
       handshake_error::bad_key, status::bad_request},
      {"key with stray bits", check(replaced(upgrade_fields(), "Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZR==")),
       handshake_error::bad_key, status::bad_request},
  };
  for (const refusal& r : table) {
    EXPECT_EQ(r.result.error, r.error) << r.what;
    EXPECT_EQ(r.result.status(), r.answer) << r.what;
    EXPECT_TRUE(r.result.key.empty()) << r.what;
  }
  EXPECT_EQ(handshake_status(handshake_error::origin_refused), status::forbidden);
  EXPECT_EQ(upgrade_required_fields[1].value, "13");
}

TEST(WebsocketHandshake, SelectsTheClientsFirstSupportedSubprotocol) {
  const std::array<std::string_view, 3> supported = {"chat.v2", "chat", "superchat"};
  auto fields = with(upgrade_fields(), {"Sec-WebSocket-Protocol", "mqtt, chat, chat.v2"});
  EXPECT_EQ(select_subprotocol(fields, supported), "chat");
  // Repeated fields count as one list, in order.
  auto repeated = with(upgrade_fields(), {"Sec-WebSocket-Protocol", "mqtt"});
  repeated.push_back({"sec-websocket-protocol", "superchat, chat"});
  EXPECT_EQ(select_subprotocol(repeated, supported), "superchat");
  // The answer is a view of the server's list, not the request.
  const std::string_view chosen = select_subprotocol(fields, supported);
  EXPECT_EQ(chosen.data(), supported[1].data());
  // Case-sensitive, and nothing when nothing matches or nothing is offered.
  EXPECT_EQ(select_subprotocol(with(upgrade_fields(), {"Sec-WebSocket-Protocol", "CHAT"}), supported), "");
  EXPECT_EQ(select_subprotocol(upgrade_fields(), supported), "");
  EXPECT_EQ(select_subprotocol(fields, {}), "");
}

TEST(WebsocketHandshake, OriginCheck) {
  const std::array<std::string_view, 2> allowed = {"https://example.com", "http://localhost:8080"};
  EXPECT_EQ(check_origin(with(upgrade_fields(), {"Origin", "https://example.com"}), allowed), handshake_error::none);
  EXPECT_EQ(check_origin(with(upgrade_fields(), {"Origin", "HTTPS://EXAMPLE.COM"}), allowed), handshake_error::none);
  EXPECT_EQ(check_origin(with(upgrade_fields(), {"Origin", "http://localhost:8080"}), allowed), handshake_error::none);
  EXPECT_EQ(check_origin(with(upgrade_fields(), {"Origin", "https://evil.example"}), allowed),
            handshake_error::origin_refused);
  EXPECT_EQ(check_origin(with(upgrade_fields(), {"Origin", "https://example.com.evil"}), allowed),
            handshake_error::origin_refused);
  EXPECT_EQ(check_origin(with(upgrade_fields(), {"Origin", "null"}), allowed), handshake_error::origin_refused);
  // No Origin: not a browser; refused only when an Origin is required.
  EXPECT_EQ(check_origin(upgrade_fields(), allowed), handshake_error::none);
  EXPECT_EQ(check_origin(upgrade_fields(), allowed, true), handshake_error::origin_refused);
  // No list: every origin.
  EXPECT_EQ(check_origin(with(upgrade_fields(), {"Origin", "https://evil.example"}), {}), handshake_error::none);
}

TEST(WebsocketHandshake, WritesTheSwitchingProtocolsHead) {
  const accept_key accept = make_accept_key(sample_key);
  std::array<char, 512> out{};
  const std::size_t n = write_switching_protocols(out, accept);
  EXPECT_EQ(std::string_view(out.data(), n),
            "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n");
  EXPECT_EQ(n, switching_protocols_size());

  const std::size_t m = write_switching_protocols(out, accept, "chat", "permessage-deflate");
  EXPECT_EQ(std::string_view(out.data(), m),
            "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\nSec-WebSocket-Protocol: chat\r\n"
            "Sec-WebSocket-Extensions: permessage-deflate\r\n\r\n");
  EXPECT_EQ(m, switching_protocols_size("chat", "permessage-deflate"));

  std::array<char, 128> small{};
  EXPECT_EQ(write_switching_protocols(small, accept), 0u);  // 129 needed
  EXPECT_EQ(write_switching_protocols(out, accept, "a\r\nX-Injected: 1"), 0u);
}

}  // namespace
