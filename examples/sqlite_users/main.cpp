// sqlite_users: a blocking database call moved off the worker with stet::offload.
// Run: sqlite_users [PORT]. Try: curl localhost:8080/users/1
//
// sqlite3_step() blocks (disk, locks, a slow query). Called in a handler it
// would stall every connection of that worker; awaited through offload it runs
// on the server's blocking pool while the worker serves others, and the
// coroutine resumes on its own worker with the row.
#include <stet/stet.hpp>

#include <sqlite3.h>

#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

namespace {

// One connection in serialized mode: any pool thread may use it (SQLite locks).
class user_db {
 public:
  user_db() {
    if (sqlite3_open_v2(":memory:", &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX,
                        nullptr) != SQLITE_OK) {
      throw std::runtime_error("sqlite3_open_v2 failed");
    }
    exec(
        "CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT NOT NULL);"
        "INSERT INTO users VALUES (1, 'Ada'), (2, 'Grace'), (3, 'Edsger');");
  }
  user_db(const user_db&) = delete;
  user_db& operator=(const user_db&) = delete;
  ~user_db() { sqlite3_close(db_); }

  /// The blocking call: the user's name, if there is one.
  std::optional<std::string> find(std::int64_t id) const {
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db_, "SELECT name FROM users WHERE id = ?", -1, &stmt, nullptr) != SQLITE_OK) {
      throw std::runtime_error(sqlite3_errmsg(db_));
    }
    const std::unique_ptr<sqlite3_stmt, int (*)(sqlite3_stmt*)> finalize(stmt, sqlite3_finalize);
    sqlite3_bind_int64(stmt, 1, id);
    if (sqlite3_step(stmt) != SQLITE_ROW) return std::nullopt;
    return std::string(reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0)));
  }

 private:
  void exec(const char* sql) {
    if (sqlite3_exec(db_, sql, nullptr, nullptr, nullptr) != SQLITE_OK) throw std::runtime_error(sqlite3_errmsg(db_));
  }
  sqlite3* db_ = nullptr;
};

}  // namespace

int main(int argc, char** argv) {
  auto db = std::make_shared<const user_db>();
  stet::router routes;
  routes.get("/users/{id:int}", [db](stet::request&, std::int64_t id) -> stet::task<stet::response> {
    // The lambda runs on a pool thread; a throw there is rethrown here (500).
    // It captures a plain pointer: a capture with a destructor would go as an
    // argument instead, offload(fn, args...) (GCC 12, docs/handlers.md).
    const std::optional<std::string> name = co_await stet::offload([users = db.get(), id] { return users->find(id); });
    if (!name) co_return stet::response::json_text(R"({"error":"no such user"})", stet::status::not_found);
    co_return stet::response::json(
        [&](stet::json::writer& w) { w.begin_object().member("id", id).member("name", *name).end_object(); });
  });

  stet::server_options options;
  options.listeners = {{.address = std::string("127.0.0.1:") + (argc > 1 ? argv[1] : "8080")}};
  options.offload_threads = 4;  // at most four queries at once; then up to offload_queue wait
  stet::server server(std::move(routes), options);
  const stet::config_error failed = stet::run_until_signal(server);  // SIGINT or SIGTERM: a graceful stop
  if (failed) std::fprintf(stderr, "sqlite_users: %s\n", failed.message().c_str());
  return failed ? 1 : 0;
}
