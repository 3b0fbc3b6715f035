#include <stet/response.hpp>

#include <stet/json.hpp>

namespace stet {

// A handler that asked for JSON and produced something else has a bug; a 500 says so
// rather than sending a truncated document with a 200.
response response::json_failure(stet::json::errc e) {
  response r(stet::status::internal_server_error);
  stet::json::writer w(r.body_buffer());
  w.begin_object().member("error", "JSON serialisation failed");
  w.member("reason", e == stet::json::errc::none ? "incomplete document" : stet::json::describe(e));
  w.end_object();
  r.append_field("Content-Type", "application/json");
  return r;
}

}  // namespace stet
