// complete_service: what a small web service needs, in one program: a JSON
// API, static files, login with a signed cookie, an upload streamed to disk,
// blocking work on the offload pool, a WebSocket room, CORS, HTTPS with
// certificate reloads, and a graceful stop. docs/complete-service.md walks
// through it. Run: complete_service PORT UPLOAD_DIR [TLS_PORT CERT KEY], with
// STET_SECRET set to the secret that signs session cookies.
#include <stet/stet.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace {

using namespace std::chrono_literals;

// Notes shared by every worker thread: a mutex is enough for an example.
class note_store {
 public:
  int add(std::string text) {
    const std::lock_guard lock(mutex_);
    notes_.emplace(next_, std::move(text));
    return next_++;
  }
  std::optional<std::string> find(int id) const {
    const std::lock_guard lock(mutex_);
    const auto it = notes_.find(id);
    return it == notes_.end() ? std::nullopt : std::optional(it->second);
  }

 private:
  mutable std::mutex mutex_;
  std::map<int, std::string> notes_;
  int next_ = 1;
};

stet::response note_json(int id, std::string_view text, stet::status s = stet::status::ok) {
  return stet::response::json(
      [&](stet::json::writer& w) { w.begin_object().member("id", id).member("text", text).end_object(); }, s);
}

stet::response error_json(stet::status s, std::string_view what) {
  return stet::response::json([what](stet::json::writer& w) { w.begin_object().member("error", what).end_object(); },
                              s);
}

// One string field of a JSON body, or nullopt (bad JSON, no such field, not a non-empty string).
std::optional<std::string> json_field(stet::request& req, std::string_view name) {
  const stet::json_result& body = req.json();
  const stet::json_value* field = body ? body->find(name) : nullptr;
  const std::optional<std::string_view> text = field != nullptr ? field->as_string() : std::nullopt;
  return text && !text->empty() ? std::optional<std::string>(*text) : std::nullopt;
}

struct session {
  std::string user;
};

void add_routes(stet::router& routes, const std::string& upload_dir) {
  // Sessions last 8 hours: the cookie's Max-Age, and the signature's own age,
  // so a copied cookie stops verifying then too.
  const char* secret = std::getenv("STET_SECRET");
  auto signer = std::make_shared<const stet::signer>(std::vector<std::string>{secret != nullptr ? secret : "change-me"},
                                                     "session", stet::signer_options{.max_age = 8h});
  auto user_of = [signer](stet::request& req) { return req.signed_cookie(*signer, "session"); };
  auto notes = std::make_shared<note_store>();

  auto files = std::make_shared<stet::static_files>(STET_EXAMPLE_SITE);
  stet::mount(routes, "/static", files);
  routes.get("/", [files](stet::request&) {
    return stet::response::html("<link rel=stylesheet href=\"" + files->static_url("app.css") + "\"><h1>Notes</h1>\n");
  });

  auto api = routes.group("/api");
  api.use(stet::cors({.origins = {"https://app.example.com"}, .allow_headers = {"Content-Type"}}));
  api.post("/login", [signer](stet::request& req) {
    const std::optional<std::string> user = json_field(req, "user");
    if (!user) return error_json(stet::status::bad_request, "need {\"user\": \"...\"}");
    stet::response r =
        stet::response::json([&user](stet::json::writer& w) { w.begin_object().member("user", *user).end_object(); });
    const stet::cookie_options cookie{.max_age = 8h, .secure = false};  // secure = true once only HTTPS serves it
    if (const std::error_code ec = r.set_signed_cookie(*signer, "session", *user, cookie))
      return stet::response::json_error(ec);
    return r;
  });
  api.post("/notes", [notes, user_of](stet::request& req) {
    if (!user_of(req)) return error_json(stet::status::unauthorized, "log in first");
    const std::optional<std::string> text = json_field(req, "text");
    if (!text) return error_json(stet::status::bad_request, "need {\"text\": \"...\"}");
    return note_json(notes->add(*text), *text, stet::status::created);
  });
  // {id:int} into an int: /api/notes/abc and /api/notes/99999999999 are 404s before the handler.
  api.get("/notes/{id:int}", [notes](stet::request&, int id) {
    const std::optional<std::string> text = notes->find(id);
    return text ? note_json(id, *text) : error_json(stet::status::not_found, "no such note");
  });

  // A raw body streamed to disk in constant memory, named only once complete.
  stet::route_options streamed{.max_body_bytes = std::uint64_t{1} << 30, .stream_body = true};
  api.put("/files/{name}", streamed,
          [upload_dir, user_of](stet::request& req, std::string_view name) -> stet::task<stet::response> {
            if (!user_of(req)) co_return error_json(stet::status::unauthorized, "log in first");  // body unread
            auto body = co_await stet::body_stream(req);  // before any other co_await
            stet::upload_file file(upload_dir);           // nameless until commit(); removed if never committed
            while (auto piece = co_await body.next()) {
              if (file.write(*piece)) co_return error_json(stet::status::internal_server_error, "cannot store it");
            }
            if (body.error()) co_return stet::response(stet::status::bad_request);  // the client is gone: not sent
            const stet::upload_commit_result done = file.commit(stet::sanitize_filename(name));
            if (done.error.code == std::errc::file_exists) co_return error_json(stet::status::conflict, "name taken");
            if (!done) co_return error_json(stet::status::bad_request, "not a file name");
            co_return stet::response::json(
                [&done](stet::json::writer& w) {
                  w.begin_object().member("size", done.info.size).member("sha256", done.info.sha256_hex()).end_object();
                },
                stet::status::created);
          });

  // Blocking work (a database call, a slow library) on the offload pool, never on a worker.
  api.get("/work", [](stet::request& req) -> stet::task<stet::response> {
    const int ms = std::atoi(std::string(req.query().get("ms").value_or("0")).c_str());
    if (ms < 0 || ms > 5000) co_return error_json(stet::status::bad_request, "ms from 0 to 5000");
    co_await stet::offload([ms] { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); });
    co_return stet::response::json(
        [ms](stet::json::writer& w) { w.begin_object().member("slept_ms", ms).end_object(); });
  });

  // A room for logged-in users: each message goes to every member, on every worker.
  stet::websocket_handlers<session> room;
  room.open = [](stet::websocket<session>& ws) { ws.subscribe("room"); };
  room.message = [](stet::websocket<session>& ws, std::string_view text, stet::message_kind) {
    ws.publish("room", ws.data().user + ": " + std::string(text));
  };
  routes.websocket("/ws/room", stet::websocket_options{}, std::move(room),
                   [user_of](stet::request& req) -> stet::upgrade_result<session> {
                     const std::optional<std::string_view> user = user_of(req);
                     if (!user) return stet::status::unauthorized;
                     return session{std::string(*user)};
                   });
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3 && argc != 6) {
    std::fprintf(stderr, "usage: complete_service PORT UPLOAD_DIR [TLS_PORT CERT KEY]\n");
    return 2;
  }
  stet::router routes;
  add_routes(routes, argv[2]);

  stet::server_options options;
  options.listeners.push_back({.address = std::string("127.0.0.1:") + argv[1]});
  if (argc == 6) {  // the same routes over HTTPS; the files are read again on SIGHUP
    auto tls = std::make_shared<stet::tls_options>();
    tls->certificates.push_back({.certificate_file = argv[4], .key_file = argv[5]});
    options.listeners.push_back({.address = std::string("127.0.0.1:") + argv[3], .tls = tls});
  }
  stet::server server(routes, options);
  stet::run_options run;
  run.on_hangup = [](stet::server& s) {
    const stet::config_error failed = s.reload_tls();
    std::fprintf(stderr, "complete_service: SIGHUP: %s\n", failed ? failed.message().c_str() : "TLS files reloaded");
  };
  // SIGINT or SIGTERM: readiness off, requests in flight answered, then exit 0.
  const stet::config_error failed = stet::run_until_signal(server, run);
  if (failed) std::fprintf(stderr, "complete_service: %s\n", failed.message().c_str());
  return failed ? 1 : 0;
}
