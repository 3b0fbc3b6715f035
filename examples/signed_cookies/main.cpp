// signed_cookies: log in and out with an HMAC-signed cookie, and rotate the
// secret without logging anyone out. Run: signed_cookies [PORT]
//   STET_SECRETS=new-secret,old-secret signed_cookies 8080
// signs with the first secret and still accepts cookies signed with the others.
//   curl -c jar -d 'user=ada' localhost:8080/login && curl -b jar localhost:8080/me
#include <stet/stet.hpp>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

namespace {

// "a,b,c" -> {"a", "b", "c"}; the first signs, every one verifies.
std::vector<std::string> secrets_from_env() {
  const char* env = std::getenv("STET_SECRETS");
  std::string list = env != nullptr ? env : "change-me";
  std::vector<std::string> secrets;
  for (std::size_t from = 0; from <= list.size();) {
    const std::size_t comma = std::min(list.find(',', from), list.size());
    if (comma > from) secrets.push_back(list.substr(from, comma - from));
    from = comma + 1;
  }
  return secrets;
}

}  // namespace

int main(int argc, char** argv) {
  // A session lasts 8 hours: the browser drops the cookie then (Max-Age), and
  // the signature carries its signing time, so a copied cookie stops
  // verifying then too. The keyed MAC state of each secret is derived once,
  // here, not per request.
  constexpr std::chrono::seconds session_length = std::chrono::hours(8);
  auto signer = std::make_shared<const stet::signer>(secrets_from_env(), "session",
                                                     stet::signer_options{.max_age = session_length});
  stet::cookie_options cookie;  // Path=/, HttpOnly, SameSite=Lax; add .secure = true behind HTTPS
  cookie.max_age = session_length;

  stet::router routes;
  routes.post("/login", [signer, cookie](stet::request& req) {
    const stet::form_result& form = req.form();  // user=NAME, application/x-www-form-urlencoded
    if (!form) return stet::response::json_error(form.error());
    const std::optional<std::string_view> user = form->get("user");
    if (!user || user->empty()) return stet::response::text("need user=NAME\n", stet::status::bad_request);
    stet::response r = stet::response::text("hello " + std::string(*user) + "\n");
    if (const std::error_code ec = r.set_signed_cookie(*signer, "session", *user, cookie)) {
      return stet::response::json_error(ec);
    }
    return r;
  });
  routes.get("/me", [signer](stet::request& req) {
    // nullopt when absent, tampered with, older than 8 hours, or signed by a secret no longer listed.
    const std::optional<std::string_view> user = req.signed_cookie(*signer, "session");
    return stet::response::json([&user](stet::json::writer& w) {
      w.begin_object().key("user");
      user ? w.string(*user) : w.null();
      w.end_object();
    });
  });
  routes.post("/logout", [](stet::request&) {
    stet::response r = stet::response::text("bye\n");
    r.clear_cookie("session");
    return r;
  });

  stet::server_options options;
  options.listeners = {{.address = std::string("127.0.0.1:") + (argc > 1 ? argv[1] : "8080")}};
  stet::server server(std::move(routes), options);
  const stet::config_error failed = stet::run_until_signal(server);  // SIGINT or SIGTERM: a graceful stop
  if (failed) std::fprintf(stderr, "signed_cookies: %s\n", failed.message().c_str());
  return failed ? 1 : 0;
}
