#include <stet/cors.hpp>  // first: the header stands alone

#include <stet/router.hpp>
#include <stet/test_request.hpp>

#include <gtest/gtest.h>

#include <cctype>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace {

using namespace std::chrono_literals;

// Every value of `name` in the response, in order, joined with ", ".
std::string all_values(const stet::response& r, std::string_view name) {
  std::string out;
  std::string_view block = r.header_block();
  while (!block.empty()) {
    const std::size_t eol = block.find("\r\n");
    const std::string_view line = block.substr(0, eol);
    block.remove_prefix(eol + 2);
    const std::size_t colon = line.find(':');
    std::string n(line.substr(0, colon));
    for (char& c : n) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    std::string wanted(name);
    for (char& c : wanted) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (n != wanted) continue;
    if (!out.empty()) out += ", ";
    out += line.substr(colon + 2);
  }
  return out;
}

std::string header_or_none(const stet::response& r, std::string_view name) {
  return r.header(name) ? std::string(*r.header(name)) : std::string("(none)");
}

stet::cors make(std::vector<std::string> origins, bool credentials = false) {
  stet::cors_options o;
  o.origins = std::move(origins);
  o.credentials = credentials;
  return stet::cors(o);
}

// What an actual (non-preflight) request from `origin` gets back.
stet::response actual(const stet::cors& c, std::optional<std::string_view> origin) {
  stet::test_request q(stet::method::get, "/x");
  if (origin) q.header("Origin", *origin);
  stet::response r = stet::response::text("x");
  c.after(q, r);
  return r;
}

struct origin_case {
  std::vector<std::string> origins;
  bool credentials;
  std::string_view origin;
  std::string_view allow_origin;  // "(none)" when refused
};

TEST(Cors, OriginTable) {
  const std::vector<origin_case> cases = {
      {{"https://app.example.com"}, false, "https://app.example.com", "https://app.example.com"},
      {{"https://app.example.com"}, false, "HTTPS://APP.example.com", "HTTPS://APP.example.com"},
      {{"https://app.example.com"}, false, "http://app.example.com", "(none)"},
      {{"https://app.example.com"}, false, "https://app.example.com:8443", "(none)"},
      {{"https://app.example.com"}, false, "https://evil.com", "(none)"},
      {{"https://app.example.com"}, false, "https://app.example.com.evil.com", "(none)"},
      {{"https://a.test", "https://b.test", "http://127.0.0.1:8080"},
       false,
       "http://127.0.0.1:8080",
       "http://127.0.0.1:8080"},
      {{"https://a.test", "https://b.test"}, false, "https://b.test", "https://b.test"},
      {{"https://*.example.com"}, false, "https://a.example.com", "https://a.example.com"},
      {{"https://*.example.com"}, false, "https://a.b.example.com", "https://a.b.example.com"},
      {{"https://*.example.com"}, false, "https://example.com", "(none)"},
      {{"https://*.example.com"}, false, "https://.example.com", "(none)"},
      {{"https://*.example.com"}, false, "https://a..example.com", "(none)"},
      {{"https://*.example.com"}, false, "https://evil.com/.example.com", "(none)"},
      {{"https://*.example.com"}, false, "https://a@b.example.com", "(none)"},
      {{"https://*.example.com"}, false, "https://aexample.com", "(none)"},
      {{"https://*.example.com"}, false, "http://a.example.com", "(none)"},
      {{"https://*.example.com"}, false, "https://a.example.com:8443", "(none)"},
      {{"https://*.example.com:8443"}, false, "https://a.example.com:8443", "https://a.example.com:8443"},
      {{"*"}, false, "https://anyone.test", "*"},
      {{"*"}, false, "null", "*"},
      {{"*"}, true, "https://anyone.test", "https://anyone.test"},  // never "*" with credentials
      {{"*"}, true, "null", "(none)"},
      {{"*"}, true, "https://bad\x01.test", "(none)"},
      {{"null"}, false, "null", "null"},
      {{"https://a.test"}, false, "null", "(none)"},
      {{}, false, "https://a.test", "(none)"},
      {{"https://a.test"}, false, "", "(none)"},
      {{"https://a.test"}, true, "https://a.test", "https://a.test"},
  };
  for (const origin_case& c : cases) {
    const stet::cors cors = make(c.origins, c.credentials);
    const stet::response r = actual(cors, c.origin);
    SCOPED_TRACE(std::string(c.origin) + " against " + (c.origins.empty() ? "(no origins)" : c.origins.front()));
    EXPECT_EQ(header_or_none(r, "Access-Control-Allow-Origin"), c.allow_origin);
    EXPECT_EQ(cors.allows_origin(c.origin), c.allow_origin != "(none)");
    const bool credentialed = c.credentials && c.allow_origin != "(none)";
    EXPECT_EQ(header_or_none(r, "Access-Control-Allow-Credentials"), credentialed ? "true" : "(none)");
    EXPECT_EQ(all_values(r, "Vary"), "Origin");
  }
}

TEST(Cors, VaryOriginEvenWithoutAnOrigin) {
  const stet::response r = actual(make({"https://a.test"}), std::nullopt);
  EXPECT_EQ(all_values(r, "Vary"), "Origin");
  EXPECT_FALSE(r.header("Access-Control-Allow-Origin"));
}

TEST(Cors, ExposedHeadersOnlyForAllowedOrigins) {
  stet::cors_options o;
  o.origins = {"https://a.test"};
  o.expose_headers = {"X-Request-Id", "ETag"};
  const stet::cors cors(o);
  EXPECT_EQ(header_or_none(actual(cors, "https://a.test"), "Access-Control-Expose-Headers"), "X-Request-Id, ETag");
  EXPECT_EQ(header_or_none(actual(cors, "https://b.test"), "Access-Control-Expose-Headers"), "(none)");
}

TEST(Cors, OriginEntriesAreCheckedWithAReason) {
  for (std::string_view good :
       {"*", "null", "https://example.com", "http://127.0.0.1:8080", "http://[::1]:80", "https://*.example.com",
        "https://*.example.com:8443", "chrome-extension://abc", "https://xn--caf-dma.example"}) {
    EXPECT_EQ(stet::cors_origin_error(good), "") << good;
  }
  for (std::string_view bad :
       {"example.com", "https://", "https://example.com/", "https://example.com/path", "https://user@example.com",
        "https://example.com:99999", "https://example.com:", "https://a.*.example.com", "https://*example.com",
        "https://*", "1http://a.test", "https://exa mple.com", "https://café.test", "https://[::1", "https://a..b"}) {
    EXPECT_NE(stet::cors_origin_error(bad), "") << bad;
  }
  EXPECT_EQ(stet::cors_origin_error("https://example.com/"),
            "an origin has no path, query or trailing '/': scheme://host[:port]");
}

TEST(Cors, BadOptionsThrowNamingTheEntry) {
  const auto message = [](const stet::cors_options& o) {
    try {
      stet::cors c(o);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("(accepted)");
  };
  stet::cors_options o;
  o.origins = {"https://ok.test", "https://bad.test/"};
  EXPECT_NE(message(o).find("\"https://bad.test/\""), std::string::npos) << message(o);
  o = {};
  o.allow_headers = {"Content Type"};
  EXPECT_NE(message(o).find("\"Content Type\" is not a header name"), std::string::npos) << message(o);
  o = {};
  o.expose_headers = {"*"};
  o.credentials = true;
  EXPECT_NE(message(o).find("cannot be exposed with credentials"), std::string::npos);
  o = {};
  o.methods = {stet::method::other};
  EXPECT_NE(message(o).find("method::other"), std::string::npos);
  o = {};
  o.max_age = std::chrono::seconds(-1);
  EXPECT_NE(message(o).find("max_age"), std::string::npos);
}

struct preflight_case {
  std::string_view name;
  std::string_view origin;
  std::string_view method;
  std::string_view headers;  // Access-Control-Request-Headers; empty: not sent
  bool allowed;
};

TEST(Cors, PreflightTable) {
  stet::cors_options o;
  o.origins = {"https://app.test", "https://*.corp.test"};
  o.methods = {stet::method::put, stet::method::delete_};
  o.allow_headers = {"Content-Type", "X-Token"};
  o.max_age = 600s;
  const stet::cors cors(o);
  const std::vector<preflight_case> cases = {
      {"listed method", "https://app.test", "PUT", "", true},
      {"second listed method", "https://x.corp.test", "DELETE", "", true},
      {"safelisted method, never listed", "https://app.test", "POST", "content-type", true},
      {"unlisted method", "https://app.test", "PATCH", "", false},
      {"unknown method", "https://app.test", "PROPFIND", "", false},
      {"lower-case method token (methods are case-sensitive)", "https://app.test", "put", "", false},
      {"allowed headers, any case, OWS", "https://app.test", "PUT", "x-token ,  CONTENT-TYPE", true},
      {"one header not allowed", "https://app.test", "PUT", "content-type, x-other", false},
      {"malformed header list", "https://app.test", "PUT", "content type", false},
      {"refused origin", "https://evil.test", "PUT", "", false},
  };
  for (const preflight_case& c : cases) {
    SCOPED_TRACE(std::string(c.name));
    stet::test_request q(stet::method::options, "/x");
    q.header("Origin", c.origin).header("Access-Control-Request-Method", c.method);
    if (!c.headers.empty()) q.header("Access-Control-Request-Headers", c.headers);
    const std::optional<stet::response> r = cors.before(q);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status(), stet::status::no_content);
    EXPECT_EQ(all_values(*r, "Vary"), "Origin, Access-Control-Request-Method, Access-Control-Request-Headers");
    EXPECT_EQ(header_or_none(*r, "Access-Control-Allow-Origin"), c.allowed ? c.origin : "(none)");
    EXPECT_EQ(header_or_none(*r, "Access-Control-Allow-Methods"), c.allowed ? "PUT, DELETE" : "(none)");
    EXPECT_EQ(header_or_none(*r, "Access-Control-Allow-Headers"), c.allowed ? "Content-Type, X-Token" : "(none)");
    EXPECT_EQ(header_or_none(*r, "Access-Control-Max-Age"), c.allowed ? "600" : "(none)");
    EXPECT_EQ(header_or_none(*r, "Access-Control-Allow-Credentials"), "(none)");
  }
}

TEST(Cors, OnlyAPreflightIsAnsweredBeforeTheHandler) {
  const stet::cors cors = make({"https://app.test"});
  stet::test_request get(stet::method::get, "/x");
  get.header("Origin", "https://app.test").header("Access-Control-Request-Method", "PUT");
  EXPECT_FALSE(cors.before(get));
  stet::test_request no_method(stet::method::options, "/x");
  no_method.header("Origin", "https://app.test");
  EXPECT_FALSE(cors.before(no_method));
  stet::test_request no_origin(stet::method::options, "/x");
  no_origin.header("Access-Control-Request-Method", "PUT");
  EXPECT_FALSE(cors.before(no_origin));
}

TEST(Cors, AnyHeaderWithCredentialsEchoesTheRequestedNames) {
  stet::cors_options o;
  o.origins = {"https://app.test"};
  o.allow_headers = {"*"};
  const auto ask = [](const stet::cors& c) {
    stet::test_request q(stet::method::options, "/x");
    q.header("Origin", "https://app.test")
        .header("Access-Control-Request-Method", "POST")
        .header("Access-Control-Request-Headers", "x-a, x-b");
    return *c.before(q);
  };
  EXPECT_EQ(header_or_none(ask(stet::cors(o)), "Access-Control-Allow-Headers"), "*");
  o.credentials = true;
  const stet::response r = ask(stet::cors(o));
  EXPECT_EQ(header_or_none(r, "Access-Control-Allow-Headers"), "x-a, x-b");
  EXPECT_EQ(header_or_none(r, "Access-Control-Allow-Credentials"), "true");
  EXPECT_EQ(header_or_none(r, "Access-Control-Allow-Origin"), "https://app.test");
}

// RFC 9110 5.3: Access-Control-Request-Headers sent as several lines is one
// list; reading the first line alone allowed a preflight whose second line
// named a header the policy does not allow.
TEST(Cors, RequestHeadersOfSeveralLinesAreOneList) {
  stet::cors_options o;
  o.origins = {"https://app.test"};
  o.allow_headers = {"Content-Type", "X-Token"};
  const auto ask = [](const stet::cors& c, std::string_view first, std::string_view second) {
    stet::test_request q(stet::method::options, "/x");
    q.header("Origin", "https://app.test")
        .header("Access-Control-Request-Method", "POST")
        .header("Access-Control-Request-Headers", first)
        .header("access-control-request-headers", second);
    return *c.before(q);
  };
  EXPECT_EQ(header_or_none(ask(stet::cors(o), "x-token", "x-other"), "Access-Control-Allow-Origin"), "(none)");
  EXPECT_EQ(header_or_none(ask(stet::cors(o), "x-token", "content-type"), "Access-Control-Allow-Origin"),
            "https://app.test");
  o.allow_headers = {"*"};
  o.credentials = true;
  EXPECT_EQ(header_or_none(ask(stet::cors(o), "x-a", "x-b"), "Access-Control-Allow-Headers"), "x-a, x-b");
}

// A router with a CORS group ("/api"), an authentication layer inside it, and
// routes outside it.
struct cors_router {
  cors_router() {
    stet::cors_options o;
    o.origins = {"https://app.test"};
    o.methods = {stet::method::put};
    o.allow_headers = {"Content-Type"};
    auto api = routes.group("/api");
    api.use(stet::cors(o));
    api.before([this](stet::request& q) -> std::optional<stet::response> {
      ++auth_calls;
      if (q.header("authorization")) return std::nullopt;
      return stet::response(stet::status::unauthorized);
    });
    api.get("/items", [](stet::request&) { return stet::response::text("items"); });
    api.put("/items/{id:int}", [](stet::request&, std::int64_t) { return stet::response::text("put"); });
    api.add(stet::method::options, "/custom", [](stet::request&) { return stet::response::text("custom options"); });
    api.get("/custom", [](stet::request&) { return stet::response::text("custom"); });
    routes.get("/plain", [](stet::request&) { return stet::response::text("plain"); });
  }
  stet::response send(stet::method m, std::string_view target, bool preflight, bool auth = false) {
    stet::test_request q(m, target);
    q.header("Origin", "https://app.test");
    if (preflight) q.header("Access-Control-Request-Method", "PUT");
    if (auth) q.header("Authorization", "Bearer t");
    return routes.handle(q);
  }
  stet::router routes;
  int auth_calls = 0;
};

TEST(Cors, RouterPreflightOnCoveredPathsSkipsOtherLayers) {
  cors_router t;
  const stet::response r = t.send(stet::method::options, "/api/items/7", true);
  EXPECT_EQ(r.status(), stet::status::no_content);
  EXPECT_EQ(header_or_none(r, "Access-Control-Allow-Origin"), "https://app.test");
  EXPECT_EQ(header_or_none(r, "Access-Control-Allow-Methods"), "PUT");
  EXPECT_FALSE(r.header("Allow"));
  EXPECT_EQ(t.auth_calls, 0) << "a preflight carries no credentials: authentication must not see it";
}

TEST(Cors, RouterPlainOptionsOnACoveredPathKeepsTheAutomaticAnswer) {
  cors_router t;
  const stet::response r = t.send(stet::method::options, "/api/items", false);
  EXPECT_EQ(r.status(), stet::status::no_content);
  EXPECT_EQ(header_or_none(r, "Allow"), "GET, HEAD, OPTIONS");
  EXPECT_EQ(all_values(r, "Vary"), "Origin");
  EXPECT_EQ(header_or_none(r, "Access-Control-Allow-Origin"), "https://app.test");
  EXPECT_EQ(t.auth_calls, 0);
}

TEST(Cors, RouterActualRequestsOnCoveredRoutesGetTheHeaders) {
  cors_router t;
  const stet::response ok = t.send(stet::method::put, "/api/items/7", false, true);
  EXPECT_EQ(ok.body(), "put");
  EXPECT_EQ(header_or_none(ok, "Access-Control-Allow-Origin"), "https://app.test");
  EXPECT_EQ(all_values(ok, "Vary"), "Origin");
  // Layers inside the CORS layer still run on actual requests; their refusals
  // carry the CORS headers, so the page can read the 401.
  const stet::response refused = t.send(stet::method::get, "/api/items", false, false);
  EXPECT_EQ(refused.status(), stet::status::unauthorized);
  EXPECT_EQ(header_or_none(refused, "Access-Control-Allow-Origin"), "https://app.test");
  EXPECT_EQ(t.auth_calls, 2);
}

TEST(Cors, RouterLeavesUncoveredPathsAlone) {
  cors_router t;
  const stet::response get = t.send(stet::method::get, "/plain", false);
  EXPECT_EQ(get.body(), "plain");
  EXPECT_EQ(all_values(get, "Vary"), "");
  EXPECT_FALSE(get.header("Access-Control-Allow-Origin"));
  const stet::response options = t.send(stet::method::options, "/plain", true);
  EXPECT_EQ(options.status(), stet::status::no_content);
  EXPECT_EQ(header_or_none(options, "Allow"), "GET, HEAD, OPTIONS");
  EXPECT_FALSE(options.header("Access-Control-Allow-Origin"));
  const stet::response missing = t.send(stet::method::options, "/api/nothing", true);
  EXPECT_EQ(missing.status(), stet::status::not_found);
  EXPECT_FALSE(missing.header("Access-Control-Allow-Origin"));
}

TEST(Cors, RouterPreflightAlsoTakesOverAnExplicitOptionsRoute) {
  cors_router t;
  const stet::response preflight = t.send(stet::method::options, "/api/custom", true, true);
  EXPECT_EQ(preflight.status(), stet::status::no_content);
  EXPECT_EQ(header_or_none(preflight, "Access-Control-Allow-Methods"), "PUT");
  const stet::response plain = t.send(stet::method::options, "/api/custom", false, true);
  EXPECT_EQ(plain.body(), "custom options");
  EXPECT_EQ(header_or_none(plain, "Access-Control-Allow-Origin"), "https://app.test");
}

TEST(Cors, RouterWideCorsCoversEveryAnswer) {
  stet::router routes;
  routes.use(make({"https://app.test"}));
  routes.get("/a", [](stet::request&) { return stet::response::text("a"); });
  stet::test_request preflight(stet::method::options, "/a");
  preflight.header("Origin", "https://app.test").header("Access-Control-Request-Method", "GET");
  EXPECT_EQ(header_or_none(routes.handle(preflight), "Access-Control-Allow-Origin"), "https://app.test");
  stet::test_request missing(stet::method::get, "/nothing");
  missing.header("Origin", "https://app.test");
  const stet::response r = routes.handle(missing);
  EXPECT_EQ(r.status(), stet::status::not_found);
  EXPECT_EQ(header_or_none(r, "Access-Control-Allow-Origin"), "https://app.test");
}

TEST(Cors, RouterPathMatchedByTwoPatternsUsesTheCoveredOne) {
  stet::router routes;
  routes.get("/files/readme", [](stet::request&) { return stet::response::text("readme"); });
  auto api = routes.group("");
  stet::cors_options o;
  o.origins = {"https://app.test"};
  o.methods = {stet::method::put};
  api.use(stet::cors(o));
  api.put("/files/{name}", [](stet::request&, std::string_view) { return stet::response::text("put"); });
  stet::test_request q(stet::method::options, "/files/readme");
  q.header("Origin", "https://app.test").header("Access-Control-Request-Method", "PUT");
  const stet::response r = routes.handle(q);
  EXPECT_EQ(header_or_none(r, "Access-Control-Allow-Origin"), "https://app.test");
  stet::test_request plain(stet::method::options, "/files/readme");
  EXPECT_EQ(header_or_none(routes.handle(plain), "Allow"), "GET, HEAD, PUT, OPTIONS");
}

}  // namespace
