// Memos, cookies and signed cookies over a real socket: login sets a signed
// cookie, a cookie jar sends it back, the actor route reads it.

#include <stet/stet.hpp>

#include "support/http_client.hpp"
#include "support/test_server.hpp"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>

namespace {

using stet::test::raw_client;
using stet::test::running_server;

// A minimal cookie jar: remembers name=value from every Set-Cookie, forgets on Max-Age=0.
class cookie_jar_client {
 public:
  void take(const stet::test::http_response& r) {
    for (const auto& [name, value] : r.headers) {
      if (name != "Set-Cookie" && name != "set-cookie") continue;
      const std::string pair = value.substr(0, value.find(';'));
      const std::size_t eq = pair.find('=');
      if (value.find("Max-Age=0") != std::string::npos) {
        cookies_.erase(pair.substr(0, eq));
      } else {
        cookies_[pair.substr(0, eq)] = pair.substr(eq + 1);
      }
    }
  }
  std::string header() const {
    if (cookies_.empty()) return {};
    std::string out = "Cookie: ";
    bool first = true;
    for (const auto& [name, value] : cookies_) {
      if (!first) out += "; ";
      first = false;
      out += name + "=" + value;
    }
    return out + "\r\n";
  }

 private:
  std::map<std::string, std::string> cookies_;
};

stet::router memo_routes(std::shared_ptr<const stet::signer> actor) {
  stet::router r;
  r.post("/login", [actor](stet::request& req) {
    const stet::json_result& body = req.json();
    if (!body) return stet::response::json_error(body.error(), body.detail());
    const stet::json_value* id = body->find("id");
    if (id == nullptr || !id->is_string()) return stet::response::json_error(stet::error::invalid_json, "id");
    stet::response res = stet::response::json_text(R"({"ok":true})");
    if (const std::error_code ec = res.set_signed_cookie(*actor, "actor", *id->as_string())) {
      return stet::response::json_error(ec);
    }
    return res;
  });
  r.get("/actor", [actor](stet::request& req) {
    const std::optional<std::string_view> who = req.signed_cookie(*actor, "actor");
    return stet::response::json([&](stet::json::writer& w) {
      w.begin_object().key("actor");
      if (who) {
        w.string(*who);
      } else {
        w.null();
      }
      w.end_object();
    });
  });
  r.get("/echo", [](stet::request& req) {
    // Repeated keys become arrays: sorted() puts equal names next to each other.
    const stet::form_data& q = req.query();
    return stet::response::json([&](stet::json::writer& w) {
      w.begin_object();
      for (std::size_t i = 0; i < q.sorted().size();) {
        const std::span<const stet::form_field> all = q.get_all(q.sorted()[i].name);
        w.key(all.front().name);
        if (all.size() == 1) {
          w.string(all.front().value);
        } else {
          w.begin_array();
          for (const stet::form_field& f : all) w.string(f.value);
          w.end_array();
        }
        i += all.size();
      }
      w.end_object();
    });
  });
  r.post("/echo", [](stet::request& req) {
    const stet::json_result& body = req.json();
    if (!body) return stet::response::json_error(body.error(), body.detail());
    return stet::response::json(*body);
  });
  r.get("/who", [](stet::request& req) {
    return stet::response::text(std::string(req.cookies().get("who").value_or("-")) + " " +
                                std::string(req.headers().get("x-tag").value_or("-")) + " " +
                                std::string(req.query().get("q").value_or("-")));
  });
  return r;
}

std::shared_ptr<const stet::signer> test_signer() {
  return std::make_shared<const stet::signer>(std::vector<std::string>{"integration-secret"}, "actor");
}

TEST(RequestMemoIntegration, LoginThenActorWithACookieJar) {
  running_server server(memo_routes(test_signer()));
  raw_client client(server.port());
  ASSERT_TRUE(client.connected());
  cookie_jar_client jar;

  auto r = client.request("GET", "/actor", jar.header());
  ASSERT_TRUE(r);
  EXPECT_EQ(r->body, R"({"actor":null})");

  r = client.request("POST", "/login", "Content-Type: application/json\r\n", R"({"id":"alice \"A\" caf\u00e9"})");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  ASSERT_TRUE(r->header("set-cookie"));
  EXPECT_NE(r->header("set-cookie")->find("HttpOnly"), std::string::npos);
  jar.take(*r);

  r = client.request("GET", "/actor", jar.header());
  ASSERT_TRUE(r);
  EXPECT_EQ(r->body, "{\"actor\":\"alice \\\"A\\\" caf\xc3\xa9\"}");

  // A second connection (maybe another worker thread) verifies the same cookie.
  raw_client other(server.port());
  r = other.request("GET", "/actor", jar.header());
  ASSERT_TRUE(r);
  EXPECT_EQ(r->body, "{\"actor\":\"alice \\\"A\\\" caf\xc3\xa9\"}");

  // A forged cookie reads as no actor.
  r = client.request("GET", "/actor", "Cookie: actor=YWRtaW4." + std::string(43, 'A') + "\r\n");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->body, R"({"actor":null})");
}

TEST(RequestMemoIntegration, BadBodiesBecomeJsonErrors) {
  running_server server(memo_routes(test_signer()));
  raw_client client(server.port());
  auto r = client.request("POST", "/login", "Content-Type: application/json\r\n", "{\"id\":");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400);
  EXPECT_EQ(r->header("content-type"), "application/json");
  EXPECT_NE(r->body.find("\"error\""), std::string::npos);

  r = client.request("POST", "/login", "Content-Type: text/plain\r\n", R"({"id":"a"})");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 415);

  r = client.request("POST", "/echo", "Content-Type: application/json\r\n", R"({"a":[1,2.5,"x"],"b":null})");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, R"({"a":[1,2.5,"x"],"b":null})");
}

TEST(RequestMemoIntegration, EchoGroupsRepeatedQueryKeys) {
  running_server server(memo_routes(test_signer()));
  raw_client client(server.port());
  const auto r = client.request("GET", "/echo?b=2&a=1&b=3&c=x+y%21");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->body, R"({"a":"1","b":["2","3"],"c":"x y!"})");
}

TEST(RequestMemoIntegration, MemosAreFreshForEveryKeepAliveAndPipelinedRequest) {
  running_server server(memo_routes(test_signer()));
  raw_client client(server.port());
  for (int i = 0; i < 3; ++i) {
    const std::string n = std::to_string(i);
    const auto r = client.request("GET", "/who?q=" + n, "Cookie: who=c" + n + "\r\nX-Tag: t" + n + "\r\n");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->body, "c" + n + " t" + n + " " + n);
  }
  ASSERT_TRUE(
      client.send("GET /who?q=a HTTP/1.1\r\nHost: x\r\nCookie: who=p1\r\nX-Tag: one\r\n\r\n"
                  "GET /who HTTP/1.1\r\nHost: x\r\n\r\n"));
  auto r = client.read_response();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->body, "p1 one a");
  r = client.read_response();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->body, "- - -");
}

}  // namespace
