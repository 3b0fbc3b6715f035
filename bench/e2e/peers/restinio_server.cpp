// restinio_server: the RESTinio peer of the end-to-end benchmark (bench/e2e/run.sh).
//
// RESTinio 0.6 (Debian's librestinio-dev) as its documentation shows it: a
// request handler run on this thread by restinio::run(on_this_thread<...>),
// single-thread traits, default settings but one: max_pipelined_requests(16).
// With the default (1), RESTinio 0.6.16 answered only the first request of a
// pipelined batch here (three pipelined GETs: one response in a second; wrk
// counted a read error per response), so the pipelined cell measured nothing.
// 127.0.0.1 only. Same bodies and Content-Type as stet-server, plus Server and
// Date headers.
// SIGINT stops it cleanly (RESTinio's break-signal handling); SIGTERM kills it.
//
// usage: restinio_server PORT

#include <restinio/all.hpp>

#include <cstdio>
#include <cstdlib>

namespace {

restinio::request_handling_status_t answer(const restinio::request_handle_t& req, restinio::http_status_line_t status,
                                           const char* type, const char* body) {
  return req->create_response(std::move(status))
      .append_header(restinio::http_field::server, "RESTinio")
      .append_header_date_field()
      .append_header(restinio::http_field::content_type, type)
      .set_body(body)
      .done();
}

restinio::request_handling_status_t handle(const restinio::request_handle_t& req) {
  if (req->header().method() == restinio::http_method_get()) {
    const auto target = req->header().request_target();
    if (target == "/plaintext") return answer(req, restinio::status_ok(), "text/plain; charset=utf-8", "Hello, World!");
    if (target == "/json") return answer(req, restinio::status_ok(), "application/json", R"({"message":"Hello, World!"})");
  }
  // An explicit 404 (a rejected request would get RESTinio's 501), so the
  // harness sees "no such endpoint" the same way for every server.
  return answer(req, restinio::status_not_found(), "text/plain; charset=utf-8", "Not Found");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: restinio_server PORT\n");
    return 2;
  }
  const auto port = static_cast<std::uint16_t>(std::atoi(argv[1]));
  std::fprintf(stderr, "restinio_server: listening on http://127.0.0.1:%u/\n", port);
  restinio::run(restinio::on_this_thread<restinio::default_single_thread_traits_t>()
                    .address("127.0.0.1")
                    .port(port)
                    .max_pipelined_requests(16)
                    .request_handler(handle));
  return 0;
}
