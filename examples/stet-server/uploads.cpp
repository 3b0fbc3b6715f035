#include "uploads.hpp"

#include <stet/body.hpp>
#include <stet/multipart.hpp>
#include <stet/upload_file.hpp>

#include <fmt/core.h>
#include <openssl/evp.h>

#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <vector>

namespace stet_server {
namespace {

// Text parts are not stored, but get a size and a SHA-256 like the files.
class text_digest {
 public:
  explicit text_digest(bool hash) : ctx_(hash ? EVP_MD_CTX_new() : nullptr) {
    if (ctx_) EVP_DigestInit_ex(ctx_.get(), EVP_sha256(), nullptr);
  }
  void update(std::string_view bytes) {
    if (ctx_) EVP_DigestUpdate(ctx_.get(), bytes.data(), bytes.size());
    size_ += bytes.size();
  }
  std::string hex() {
    if (!ctx_) return {};
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned length = 0;
    EVP_DigestFinal_ex(ctx_.get(), digest, &length);
    std::string out;
    for (unsigned i = 0; i < length; ++i) out += fmt::format("{:02x}", digest[i]);
    return out;
  }
  std::uint64_t size() const noexcept { return size_; }

 private:
  struct free_ctx {
    void operator()(EVP_MD_CTX* c) const noexcept { EVP_MD_CTX_free(c); }
  };
  std::unique_ptr<EVP_MD_CTX, free_ctx> ctx_;
  std::uint64_t size_ = 0;
};

struct part_summary {
  std::string name;
  std::optional<std::string> filename;  // as stored (sanitised, made unique)
  std::uint64_t size = 0;
  std::string sha256;
};

stet::response failure(stet::status s, std::string_view why) {
  return stet::response::json(s, [why](stet::json::writer& w) { w.begin_object().member("error", why).end_object(); });
}

stet::response upload_failure(const stet::upload_error& e) {
  return failure(stet::status::internal_server_error, e.message());
}

// Commits under `wanted`, or `wanted-1`, `wanted-2`, ... when taken: an
// upload never replaces another one's file.
std::atomic<std::uint64_t> name_attempts{0};

stet::upload_commit_result commit_unique(stet::upload_file& file, const std::string& wanted) {
  name_attempts.fetch_add(1, std::memory_order_relaxed);
  stet::upload_commit_result r = file.commit(wanted);
  const std::size_t dot = wanted.rfind('.');
  const std::string stem = dot == std::string::npos || dot == 0 ? wanted : wanted.substr(0, dot);
  const std::string extension = stem.size() == wanted.size() ? std::string() : wanted.substr(dot);
  for (int n = 1; !r && r.error.code == std::errc::file_exists && n < 1000; ++n) {
    name_attempts.fetch_add(1, std::memory_order_relaxed);
    r = file.commit(stet::sanitize_filename(fmt::format("{}-{}{}", stem, n, extension)));
  }
  return r;
}

// POST /upload: each part of a multipart/form-data body as it arrives; file
// parts go to the directory, text parts are only measured.
class multipart_sink final : public stet::body_sink {
 public:
  multipart_sink(std::string_view content_type, const upload_config& config)
      : parser_(content_type), directory_(config.directory), digest_(config.digest) {}

  stet::body_flow on_data(std::string_view piece) override {
    parser_.consume(piece, [this](const stet::multipart_event& e) { on_event(e); });
    return answer_ ? stet::body_flow::answer : stet::body_flow::more;
  }

  stet::response on_end() override {
    if (!answer_) parser_.finish([this](const stet::multipart_event& e) { on_event(e); });
    if (answer_) return std::move(*answer_);
    return stet::response::json([this](stet::json::writer& w) {
      w.begin_object().key("parts").begin_array();
      for (const part_summary& p : parts_) {
        w.begin_object().member("name", p.name).key("filename");
        p.filename ? w.string(*p.filename) : w.null();
        w.member("size", p.size).key("sha256");
        digest_ ? w.string(p.sha256) : w.null();
        w.end_object();
      }
      w.end_array().end_object();
    });
  }

  void on_abort(std::error_code) noexcept override { file_.abort(); }

 private:
  void on_event(const stet::multipart_event& e) {
    if (answer_) return;
    switch (e.kind) {
      case stet::multipart_event_kind::part_begin: begin_part(); break;
      case stet::multipart_event_kind::part_data: add_data(e.data); break;
      case stet::multipart_event_kind::part_end: end_part(); break;
      case stet::multipart_event_kind::failed:
        answer_ = failure(parser_.error().status(), parser_.error().message());
        file_.abort();
        break;
      case stet::multipart_event_kind::done:
      case stet::multipart_event_kind::need_more: break;
    }
  }

  void begin_part() {
    const stet::multipart_part& p = parser_.part();
    parts_.push_back({std::string(p.name), std::nullopt, 0, {}});
    // filename="" is what a browser sends for a file input left empty: no
    // file was chosen, so none is stored (it is listed as a field would be).
    if (p.is_file() && !p.filename->empty()) {
      parts_.back().filename = stet::sanitize_filename(*p.filename);
      file_ = stet::upload_file(directory_, {.digest = digest_});
      if (file_.error()) answer_ = upload_failure(file_.error());
    } else {
      text_.emplace(digest_);
    }
  }

  void add_data(std::string_view data) {
    if (text_) {
      text_->update(data);
    } else if (const stet::upload_error e = file_.write(data)) {
      answer_ = upload_failure(e);
      file_.abort();
    }
  }

  void end_part() {
    part_summary& p = parts_.back();
    if (text_) {
      p.size = text_->size();
      p.sha256 = text_->hex();
      text_.reset();
      return;
    }
    const stet::upload_commit_result done = commit_unique(file_, *p.filename);
    if (!done) {
      answer_ = upload_failure(done.error);
      file_.abort();
      return;
    }
    p.filename = std::filesystem::path(done.info.path).filename().string();
    p.size = done.info.size;
    p.sha256 = done.info.sha256_hex();
  }

  stet::multipart_parser parser_;
  std::string directory_;
  bool digest_;
  stet::upload_file file_;
  std::optional<text_digest> text_;
  std::vector<part_summary> parts_;
  std::optional<stet::response> answer_;  // set once something failed: the body's rest is not read
};

// PUT /upload/{name}: the body is the file. PUT replaces (RFC 9110 9.3.4):
// 201 when the name is new, 200 when it replaced a file.
class raw_sink final : public stet::body_sink {
 public:
  raw_sink(const upload_config& config, std::string name)
      : file_(config.directory, {.replace = true, .digest = config.digest}),
        name_(std::move(name)),
        existed_(std::filesystem::exists(std::filesystem::path(config.directory) / name_)) {}

  stet::body_flow on_data(std::string_view piece) override {
    return file_.write(piece) ? stet::body_flow::answer : stet::body_flow::more;
  }

  stet::response on_end() override {
    if (file_.error()) return upload_failure(file_.error());
    const stet::upload_commit_result done = file_.commit(name_);
    if (!done) return upload_failure(done.error);
    const stet::status s = existed_ ? stet::status::ok : stet::status::created;
    return stet::response::json(s, [&](stet::json::writer& w) {
      w.begin_object().member("name", name_).member("size", done.info.size).key("sha256");
      done.info.sha256_hex().empty() ? w.null() : w.string(done.info.sha256_hex());
      w.end_object();
    });
  }

  void on_abort(std::error_code) noexcept override { file_.abort(); }

 private:
  stet::upload_file file_;
  std::string name_;
  bool existed_;
};

}  // namespace

void add_upload_routes(stet::router& routes, const upload_config& config) {
  stet::route_options streamed;
  streamed.max_body_bytes = config.max_bytes;
  streamed.stream_body = true;
  routes.post("/upload", streamed, [config](stet::request& req) {
    const std::string_view type = req.header("content-type").value_or("");
    const stet::multipart_boundary_result b = stet::multipart_boundary(type);
    if (b.error) {
      return failure(stet::status::unsupported_media_type,
                     "the body must be multipart/form-data with a boundary: " + b.error.message());
    }
    return stet::read_body(std::make_unique<multipart_sink>(type, config));
  });
  routes.put("/upload/{name}", streamed, [config](stet::request&, std::string_view name) {
    const std::string safe = stet::sanitize_filename(name, "");
    if (safe.empty() || safe != name) {
      return failure(stet::status::bad_request, "the name must be a plain file name (no '/', not hidden)");
    }
    auto sink = std::make_unique<raw_sink>(config, safe);
    return stet::read_body(std::move(sink));
  });
}

std::uint64_t upload_name_attempts() noexcept { return name_attempts.load(std::memory_order_relaxed); }

upload_dir_result prepare_upload_dir(const std::string& given) {
  if (given.empty()) {
    std::string templ = (std::filesystem::temp_directory_path() / "stet-uploads-XXXXXX").string();
    if (::mkdtemp(templ.data()) == nullptr)
      return {{}, fmt::format("cannot create {}: {}", templ, std::strerror(errno))};
    return {templ, {}};
  }
  struct stat st {};
  if (::stat(given.c_str(), &st) != 0) return {{}, fmt::format("--upload-dir {}: {}", given, std::strerror(errno))};
  if (!S_ISDIR(st.st_mode)) return {{}, fmt::format("--upload-dir {}: not a directory", given)};
  if (::access(given.c_str(), W_OK | X_OK) != 0) {
    return {{}, fmt::format("--upload-dir {}: {}", given, std::strerror(errno))};
  }
  return {given, {}};
}

void remove_upload_dir(const std::string& path) noexcept {
  std::error_code ignored;
  std::filesystem::remove_all(path, ignored);
}

}  // namespace stet_server
