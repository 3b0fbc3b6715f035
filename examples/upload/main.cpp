// upload: multipart/form-data file uploads streamed to a directory as they
// arrive, in constant memory whatever their size (up to 1 GiB here; larger is
// 413). Each file part is written nameless and gets its name only once whole.
// Run: upload [PORT] [DIR], then: curl -F file=@big.iso localhost:8080/upload
#include <stet/stet.hpp>

#include <fmt/format.h>

#include <cstdio>
#include <memory>
#include <string>

namespace {

// Takes one request's body piece by piece: the parser cuts it into parts,
// each file part goes through an upload_file.
class save_files final : public stet::body_sink {
 public:
  save_files(std::string_view content_type, std::string dir) : parser_(content_type), dir_(std::move(dir)) {}

  stet::body_flow on_data(std::string_view piece) override {
    parser_.consume(piece, [this](const stet::multipart_event& e) { on_event(e); });
    return parser_ && !failed_ ? stet::body_flow::more : stet::body_flow::answer;  // answer: skip the rest
  }

  stet::response on_end() override {
    if (parser_ && !failed_) parser_.finish([this](const stet::multipart_event& e) { on_event(e); });
    if (!parser_) return stet::response::text(parser_.error().message() + "\n", parser_.error().status());
    if (failed_) {
      const bool taken = failed_.code == std::errc::file_exists;
      return stet::response::text(failed_.message() + "\n",
                                  taken ? stet::status::conflict : stet::status::internal_server_error);
    }
    if (saved_.empty()) return stet::response::text("no file in the form\n", stet::status::bad_request);
    return stet::response::text(saved_);
  }

  void on_abort(std::error_code) noexcept override { file_.abort(); }  // nothing half-written is left

 private:
  void on_event(const stet::multipart_event& e) {
    const stet::multipart_part& part = parser_.part();
    if (failed_ || !part.is_file() || part.filename->empty()) return;  // text fields and empty file inputs
    if (e.kind == stet::multipart_event_kind::part_begin) {
      file_ = stet::upload_file(dir_);
      failed_ = file_.error();
    } else if (e.kind == stet::multipart_event_kind::part_data) {
      failed_ = file_.write(e.data);
    } else if (e.kind == stet::multipart_event_kind::part_end) {
      // "../../etc/passwd" becomes "passwd"; an existing name is refused (EEXIST).
      const stet::upload_commit_result done = file_.commit(stet::sanitize_filename(*part.filename));
      failed_ = done.error;
      if (done)
        saved_ += fmt::format("{} {} bytes sha256={}\n", done.info.path, done.info.size, done.info.sha256_hex());
    }
  }

  stet::multipart_parser parser_;
  std::string dir_;
  stet::upload_file file_;
  stet::upload_error failed_;  // the first file error; the rest of the body is then skipped
  std::string saved_;          // one line per file committed
};

}  // namespace

int main(int argc, char** argv) {
  const std::string dir = argc > 2 ? argv[2] : ".";

  stet::router routes;
  routes.get("/", [](stet::request&) {
    return stet::response::html(
        "<form method=post action=/upload enctype=multipart/form-data>"
        "<input type=file name=file multiple> <button>Upload</button></form>\n");
  });
  // stream_body: the handler runs on the head, before any of the body is read.
  // A Content-Length over max_body_bytes is answered 413 before that (and
  // before 100 Continue); a chunked body is cut off with 413 when it crosses it.
  stet::route_options streamed;
  streamed.max_body_bytes = std::uint64_t{1} << 30;  // the server's default is 1 MiB
  streamed.stream_body = true;
  routes.post("/upload", streamed, [dir](stet::request& req) {
    const std::string_view type = req.header("content-type").value_or("");
    if (const stet::multipart_boundary_result b = stet::multipart_boundary(type); b.error) {
      return stet::response::text(b.error.message() + "\n", b.error.status());  // 415 or 400, body unread
    }
    return stet::read_body(std::make_unique<save_files>(type, dir));
  });

  stet::server_options options;
  options.listeners = {{.address = std::string("127.0.0.1:") + (argc > 1 ? argv[1] : "8080")}};
  stet::server server(std::move(routes), options);
  const stet::config_error failed = stet::run_until_signal(server);  // SIGINT or SIGTERM: a graceful stop
  if (failed) std::fprintf(stderr, "upload: %s\n", failed.message().c_str());
  return failed ? 1 : 0;
}
