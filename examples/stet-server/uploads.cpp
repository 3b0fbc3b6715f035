#include "uploads.hpp"

#include <stet/body.hpp>
#include <stet/json.hpp>
#include <stet/multipart.hpp>
#include <stet/upload_file.hpp>

#include <fmt/core.h>
#include <openssl/evp.h>

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
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
  std::optional<std::string> filename;  // as sent, sanitised (stored as staged_files::final_name())
  std::uint64_t size = 0;
  std::string sha256;
  std::optional<std::size_t> staged;  // a stored file's index in the request's staged_files
};

// What a request's sink needs of the routes' settings, shared by all.
struct upload_settings {
  upload_config config;
  upload_log log;
};
using shared_settings = std::shared_ptr<const upload_settings>;

stet::response failure(stet::status s, std::string_view why) {
  return stet::response::json([why](stet::json::writer& w) { w.begin_object().member("error", why).end_object(); }, s);
}

// The log learns the path; the client only what failed, never where: a
// server path tells an attacker about the machine and helps no client.
stet::response upload_failure(const upload_settings& settings, const stet::upload_error& e) {
  const std::string line = "upload: " + e.message();
  if (settings.log) {
    settings.log(line);
  } else {
    std::fprintf(stderr, "stet-server: %s\n", line.c_str());
  }
  return failure(stet::status::internal_server_error,
                 fmt::format("the upload could not be stored ({}: {})", e.operation, e.code.message()));
}

std::atomic<std::uint64_t> name_attempts{0};

constexpr std::size_t max_name_bytes = 255;      // NAME_MAX
constexpr std::size_t max_extension_bytes = 16;  // as sanitize_filename() keeps
// Random names are retried when taken; with 2^32 suffixes (2^64 staging
// names) a second miss in a row is already unlikely with millions of copies
// of one name, so this bound is never the reason for a 500.
constexpr int max_name_tries = 16;

// Hex digits from getrandom(2) (a CSPRNG: a client cannot predict, and so
// cannot take ahead of time, the names its uploads will get).
std::string random_hex(std::size_t digits) {
  std::uint64_t r = 0;
  if (::getrandom(&r, sizeof r, GRND_NONBLOCK) != static_cast<ssize_t>(sizeof r)) {
    // Only unpredictability is lost: a taken name is still refused and retried.
    static std::atomic<std::uint64_t> counter{0};
    r = static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()) ^
        (counter.fetch_add(1, std::memory_order_relaxed) * 0x9e3779b97f4a7c15u);
  }
  return fmt::format("{:016x}", r).substr(0, digits);
}

// `wanted` with `suffix` before its extension, at most 255 bytes: the stem is
// shortened (by sanitize_filename(), at a UTF-8 character boundary, keeping an
// extension of up to 16 bytes), never the suffix, which a cut would turn back
// into a taken name.
std::string with_suffix(const std::string& wanted, std::string_view suffix) {
  const std::string base = stet::sanitize_filename(wanted, wanted, max_name_bytes - suffix.size());
  const std::size_t dot = base.rfind('.');
  const std::size_t split =
      dot != std::string::npos && dot > 0 && base.size() - dot <= max_extension_bytes ? dot : base.size();
  return fmt::format("{}{}{}", std::string_view(base).substr(0, split), suffix, std::string_view(base).substr(split));
}

// renameat2(RENAME_NOREPLACE): the name is taken atomically or refused with
// EEXIST, never replaced, whoever races for it. Where the filesystem lacks
// the flag, link (which refuses a taken name too), then unlink. 0 or an errno.
int rename_noreplace(int dir_fd, const std::string& from, const std::string& to) noexcept {
  if (::renameat2(dir_fd, from.c_str(), dir_fd, to.c_str(), RENAME_NOREPLACE) == 0) return 0;
  if (errno != EINVAL && errno != ENOSYS) return errno;
  if (::linkat(dir_fd, from.c_str(), dir_fd, to.c_str(), 0) != 0) return errno;
  ::unlinkat(dir_fd, from.c_str(), 0);
  return 0;
}

// One request's files, all or nothing. Each is linked under a hidden
// `.stet-upload-<16 hex>` name as its part ends (holding a descriptor per
// part instead would cap a request's parts at the process's descriptor
// limit), and gets its final name only once the whole request succeeded.
// Otherwise, and when the request is dropped (the client gone, a limit, a
// malformed body), every file is removed. A crash can leave hidden names
// behind, as upload_file's named fallback can.
class staged_files {
 public:
  explicit staged_files(std::string directory) : directory_(std::move(directory)) {}
  staged_files(const staged_files&) = delete;
  staged_files& operator=(const staged_files&) = delete;
  ~staged_files() {
    discard();
    if (dir_fd_ >= 0) ::close(dir_fd_);
  }

  // Links `file` under a hidden name for `wanted` (a sanitised name); its
  // index in this set is size() - 1 afterwards.
  stet::upload_commit_result stage(stet::upload_file& file, std::string wanted) {
    if (stet::upload_error e = open_directory()) return {{}, std::move(e)};
    stet::upload_commit_result r;
    for (int attempt = 0; attempt < max_name_tries; ++attempt) {
      const std::string hidden = ".stet-upload-" + random_hex(16);
      r = file.commit(hidden);
      if (r) {
        struct stat st {};
        const ino_t ino = ::fstatat(dir_fd_, hidden.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 ? st.st_ino : 0;
        files_.push_back({hidden, std::move(wanted), {}, ino});
        return r;
      }
      if (r.error.code != std::errc::file_exists) break;
    }
    return r;
  }

  std::size_t size() const noexcept { return files_.size(); }
  const std::string& final_name(std::size_t i) const noexcept { return files_[i].final_name; }

  // Gives every file its final name: the wanted one, or when that is taken
  // the wanted one with `-<8 hex>` before the extension. On a failure the
  // files named so far lose their names again and all are removed.
  stet::upload_error place_all() {
    for (staged& f : files_) {
      if (stet::upload_error e = place(f)) {
        roll_back();
        return e;
      }
    }
    return {};
  }

  // Removes the files not (yet) given their final names.
  void discard() noexcept {
    for (const staged& f : files_) {
      if (f.final_name.empty()) ::unlinkat(dir_fd_, f.hidden.c_str(), 0);
    }
    files_.clear();
  }

 private:
  // Removes every file, named ones too while their name still holds this
  // request's file (another upload may have replaced it since: PUT does).
  void roll_back() noexcept {
    for (staged& f : files_) {
      struct stat st {};
      if (!f.final_name.empty() && ::fstatat(dir_fd_, f.final_name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 &&
          st.st_ino == f.ino) {
        ::unlinkat(dir_fd_, f.final_name.c_str(), 0);
      }
      f.final_name.clear();
    }
    discard();
  }

  struct staged {
    std::string hidden;      // the name it has until placed
    std::string wanted;      // the name asked for, sanitised
    std::string final_name;  // once placed
    ino_t ino = 0;           // to remove only this file in a roll-back
  };

  stet::upload_error open_directory() {
    if (dir_fd_ >= 0) return {};
    dir_fd_ = ::open(directory_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir_fd_ >= 0) return {};
    return {std::error_code(errno, std::generic_category()), "open", directory_};
  }

  stet::upload_error place(staged& f) {
    int err = EEXIST;
    std::string name = f.wanted;
    for (int attempt = 0; attempt < max_name_tries && err == EEXIST; ++attempt) {
      if (attempt > 0) name = with_suffix(f.wanted, "-" + random_hex(8));
      name_attempts.fetch_add(1, std::memory_order_relaxed);
      err = rename_noreplace(dir_fd_, f.hidden, name);
    }
    if (err != 0) return {std::error_code(err, std::generic_category()), "rename", directory_ + "/" + name};
    f.final_name = std::move(name);
    return {};
  }

  std::string directory_;
  int dir_fd_ = -1;
  std::vector<staged> files_;
};

// POST /upload: each part of a multipart/form-data body as it arrives; file
// parts go to the directory (all of them, or none: see staged_files), text
// parts are only measured.
class multipart_sink final : public stet::body_sink {
 public:
  multipart_sink(std::string_view content_type, shared_settings settings)
      : parser_(content_type), settings_(std::move(settings)), staged_(settings_->config.directory) {}

  stet::body_flow on_data(std::string_view piece) override {
    parser_.consume(piece, [this](const stet::multipart_event& e) { on_event(e); });
    return answer_ ? stet::body_flow::answer : stet::body_flow::more;
  }

  stet::response on_end() override {
    if (!answer_) parser_.finish([this](const stet::multipart_event& e) { on_event(e); });
    if (!answer_) {
      if (const stet::upload_error e = staged_.place_all()) fail(upload_failure(*settings_, e));
    }
    if (answer_) return std::move(*answer_);
    return stet::response::json([this](stet::json::writer& w) {
      w.begin_object().key("parts").begin_array();
      for (const part_summary& p : parts_) {
        w.begin_object().member("name", p.name).key("filename");
        if (p.staged) {
          w.string(staged_.final_name(*p.staged));
        } else {
          p.filename ? w.string(*p.filename) : w.null();
        }
        w.member("size", p.size).key("sha256");
        settings_->config.digest ? w.string(p.sha256) : w.null();
        w.end_object();
      }
      w.end_array().end_object();
    });
  }

  void on_abort(std::error_code) noexcept override {
    file_.abort();
    staged_.discard();
  }

 private:
  // The request fails: nothing it sent is kept.
  void fail(stet::response answer) {
    answer_ = std::move(answer);
    file_.abort();
    staged_.discard();
  }

  void on_event(const stet::multipart_event& e) {
    if (answer_) return;
    switch (e.kind) {
      case stet::multipart_event_kind::part_begin: begin_part(); break;
      case stet::multipart_event_kind::part_data: add_data(e.data); break;
      case stet::multipart_event_kind::part_end: end_part(); break;
      case stet::multipart_event_kind::failed:
        fail(failure(parser_.error().status(), parser_.error().message()));
        break;
      case stet::multipart_event_kind::done:
      case stet::multipart_event_kind::need_more: break;
    }
  }

  void begin_part() {
    const stet::multipart_part& p = parser_.part();
    parts_.push_back({std::string(p.name), std::nullopt, 0, {}, std::nullopt});
    // filename="" is what a browser sends for a file input left empty: no
    // file was chosen, so none is stored (it is listed as a field would be).
    if (p.is_file() && !p.filename->empty()) {
      parts_.back().filename = stet::sanitize_filename(*p.filename);
      file_ = stet::upload_file(settings_->config.directory, {.digest = settings_->config.digest});
      if (file_.error()) fail(upload_failure(*settings_, file_.error()));
    } else {
      text_.emplace(settings_->config.digest);
    }
  }

  void add_data(std::string_view data) {
    if (text_) {
      text_->update(data);
    } else if (const stet::upload_error e = file_.write(data)) {
      fail(upload_failure(*settings_, e));
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
    const stet::upload_commit_result done = staged_.stage(file_, *p.filename);
    if (!done) {
      fail(upload_failure(*settings_, done.error));
      return;
    }
    p.staged = staged_.size() - 1;
    p.size = done.info.size;
    p.sha256 = done.info.sha256_hex();
  }

  stet::multipart_parser parser_;
  shared_settings settings_;
  stet::upload_file file_;
  staged_files staged_;
  std::optional<text_digest> text_;
  std::vector<part_summary> parts_;
  std::optional<stet::response> answer_;  // set once something failed: the body's rest is not read
};

// PUT /upload/{name}: the body is the file. PUT replaces (RFC 9110 9.3.4):
// 201 when the name is new, 200 when it replaced a file. Which one is decided
// by the commit itself (upload_file_info::replaced), not by a look before the
// body: of several PUTs racing onto a new name, exactly one gets 201.
class raw_sink final : public stet::body_sink {
 public:
  raw_sink(shared_settings settings, std::string name)
      : settings_(std::move(settings)),
        file_(settings_->config.directory, {.replace = true, .digest = settings_->config.digest}),
        name_(std::move(name)) {}

  stet::body_flow on_data(std::string_view piece) override {
    return file_.write(piece) ? stet::body_flow::answer : stet::body_flow::more;
  }

  stet::response on_end() override {
    if (file_.error()) return upload_failure(*settings_, file_.error());
    const stet::upload_commit_result done = file_.commit(name_);
    if (!done) return upload_failure(*settings_, done.error);
    const stet::status s = done.info.replaced ? stet::status::ok : stet::status::created;
    return stet::response::json(
        [&](stet::json::writer& w) {
          w.begin_object().member("name", name_).member("size", done.info.size).key("sha256");
          done.info.sha256_hex().empty() ? w.null() : w.string(done.info.sha256_hex());
          w.end_object();
        },
        s);
  }

  void on_abort(std::error_code) noexcept override { file_.abort(); }

 private:
  shared_settings settings_;
  stet::upload_file file_;
  std::string name_;
};

}  // namespace

void add_upload_routes(stet::router& routes, const upload_config& config, upload_log log) {
  stet::route_options streamed;
  streamed.max_body_bytes = config.max_bytes;
  streamed.stream_body = true;
  auto shared = std::make_shared<const upload_settings>(upload_settings{config, std::move(log)});
  routes.post("/upload", streamed, [shared](stet::request& req) {
    const std::string_view type = req.header("content-type").value_or("");
    const stet::multipart_boundary_result b = stet::multipart_boundary(type);
    if (b.error) {
      return failure(stet::status::unsupported_media_type,
                     "the body must be multipart/form-data with a boundary: " + b.error.message());
    }
    return stet::read_body(std::make_unique<multipart_sink>(type, shared));
  });
  routes.put("/upload/{name}", streamed, [shared](stet::request&, std::string_view name) {
    const std::string safe = stet::sanitize_filename(name, "");
    if (safe.empty() || safe != name) {
      return failure(stet::status::bad_request, "the name must be a plain file name (no '/', not hidden)");
    }
    return stet::read_body(std::make_unique<raw_sink>(shared, safe));
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
  // Create (and drop) a file the way an upload will: access(2) says yes to
  // root even where nothing can be created (/proc, a read-only mount).
  stet::upload_file probe(given, stet::upload_file_options{.digest = false});
  if (const stet::upload_error& e = probe.error()) {
    return {{}, fmt::format("--upload-dir {}: {}", given, e.code.message())};
  }
  probe.abort();
  return {given, {}};
}

void remove_upload_dir(const std::string& path) noexcept {
  std::error_code ignored;
  std::filesystem::remove_all(path, ignored);
}

}  // namespace stet_server
