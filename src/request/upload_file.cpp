#include <stet/upload_file.hpp>

#include "crypto/sha256.hpp"

#include <fcntl.h>
#include <sys/random.h>
#include <unistd.h>

#include <fmt/format.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <utility>

namespace stet {
namespace {

constexpr int max_name_attempts = 16;

std::string random_name() {
  std::uint64_t r = 0;
  if (::getrandom(&r, sizeof r, GRND_NONBLOCK) != static_cast<ssize_t>(sizeof r)) {
    // Only unpredictability is lost: O_EXCL and linkat still refuse a taken name.
    static std::atomic<std::uint64_t> counter{0};
    r = static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()) ^
        (counter.fetch_add(1) * 0x9e3779b97f4a7c15u);
  }
  return fmt::format(".stet-upload-{:016x}", r);
}

bool is_single_component(std::string_view name) noexcept {
  return !name.empty() && name.size() <= 255 && name != "." && name != ".." &&
         name.find_first_of(std::string_view("/\0", 2)) == std::string_view::npos;
}

// Links an O_TMPFILE descriptor as `name`. AT_EMPTY_PATH needs
// CAP_DAC_READ_SEARCH (ENOENT without it); the /proc path is the
// unprivileged way (open(2), O_TMPFILE).
int link_descriptor(int fd, int dir_fd, const char* name) noexcept {
  if (::linkat(fd, "", dir_fd, name, AT_EMPTY_PATH) == 0) return 0;
  if (errno != ENOENT && errno != EPERM) return -1;
  char proc_path[32];
  std::snprintf(proc_path, sizeof proc_path, "/proc/self/fd/%d", fd);
  return ::linkat(AT_FDCWD, proc_path, dir_fd, name, AT_SYMLINK_FOLLOW);
}

}  // namespace

std::string upload_error::message() const {
  if (!code) return {};
  return fmt::format("{} {}: {}", operation, path, code.message());
}

upload_file::upload_file() noexcept = default;

upload_file::upload_file(std::string directory, upload_file_options options)
    : directory_(std::move(directory)), options_(options) {
  while (directory_.size() > 1 && directory_.back() == '/') directory_.pop_back();
  error_ = open_file();
  if (error_) close_all();
}

upload_file::upload_file(upload_file&& other) noexcept
    : directory_(std::move(other.directory_)),
      options_(other.options_),
      dir_fd_(std::exchange(other.dir_fd_, -1)),
      fd_(std::exchange(other.fd_, -1)),
      temp_name_(std::move(other.temp_name_)),
      size_(other.size_),
      digest_(std::move(other.digest_)),
      final_digest_(other.final_digest_),
      error_(std::move(other.error_)) {
  other.temp_name_.clear();
}

upload_file& upload_file::operator=(upload_file&& other) noexcept {
  if (this != &other) {
    abort();
    directory_ = std::move(other.directory_);
    options_ = other.options_;
    dir_fd_ = std::exchange(other.dir_fd_, -1);
    fd_ = std::exchange(other.fd_, -1);
    temp_name_ = std::move(other.temp_name_);
    other.temp_name_.clear();
    size_ = other.size_;
    digest_ = std::move(other.digest_);
    final_digest_ = other.final_digest_;
    error_ = std::move(other.error_);
  }
  return *this;
}

upload_file::~upload_file() { abort(); }

std::string upload_file::path_of(std::string_view name) const {
  if (name.empty()) return directory_;
  return fmt::format("{}/{}", directory_, name);
}

upload_error upload_file::failure(std::string_view operation, int err, std::string_view name) const {
  return {std::error_code(err, std::generic_category()), operation, path_of(name)};
}

upload_error upload_file::open_file() {
  dir_fd_ = ::open(directory_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd_ < 0) return failure("open", errno, {});
  if (options_.digest) {
    digest_ = std::make_unique<detail::sha256>();
    if (!digest_->ok()) return failure("open", ENOMEM, {});
  }
  if (options_.allow_tmpfile) {
    fd_ = ::openat(dir_fd_, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, options_.mode);
    if (fd_ >= 0) return {};
    // The filesystem (or kernel) has no O_TMPFILE: fall back to a hidden name.
    if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL && errno != ENOENT) {
      return failure("open", errno, {});
    }
  }
  return open_named();
}

upload_error upload_file::open_named() {
  int err = EEXIST;
  for (int attempt = 0; attempt < max_name_attempts && err == EEXIST; ++attempt) {
    temp_name_ = random_name();
    fd_ = ::openat(dir_fd_, temp_name_.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, options_.mode);
    if (fd_ >= 0) return {};
    err = errno;
  }
  upload_error e = failure("open", err, temp_name_);
  temp_name_.clear();
  return e;
}

upload_error upload_file::write(std::string_view piece) {
  if (error_) return error_;
  if (fd_ < 0 || final_digest_) return failure("write", EBADF, temp_name_);
  while (!piece.empty()) {
    const ssize_t n = ::write(fd_, piece.data(), piece.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      error_ = failure("write", errno, temp_name_);
      return error_;
    }
    const auto written = static_cast<std::size_t>(n);
    if (digest_ && !digest_->update(piece.substr(0, written))) {
      error_ = failure("write", ENOMEM, temp_name_);
      return error_;
    }
    size_ += written;
    piece.remove_prefix(written);
  }
  return {};
}

// With `replace`, a new name is still linked as without it first: linkat
// refuses a taken name atomically, so the caller learns for sure whether it
// created the name (a PUT's 201) or replaced a file (200).
upload_error upload_file::link_anonymous(const std::string& name) {
  if (link_descriptor(fd_, dir_fd_, name.c_str()) == 0) return {};
  const int err = errno;
  if (err != EEXIST || !options_.replace) return failure("link", err, name);
  return replace_anonymous(name);
}

upload_error upload_file::replace_anonymous(const std::string& name) {
  // linkat never replaces: link under a fresh temporary name, then rename over.
  std::string temp;
  int err = EEXIST;
  for (int attempt = 0; attempt < max_name_attempts && err == EEXIST; ++attempt) {
    temp = random_name();
    err = link_descriptor(fd_, dir_fd_, temp.c_str()) == 0 ? 0 : errno;
  }
  if (err != 0) return failure("link", err, temp);
  if (::renameat(dir_fd_, temp.c_str(), dir_fd_, name.c_str()) != 0) {
    err = errno;
    ::unlinkat(dir_fd_, temp.c_str(), 0);
    return failure("rename", err, name);
  }
  replaced_ = true;
  return {};
}

upload_error upload_file::rename_named(const std::string& name) {
  if (::renameat2(dir_fd_, temp_name_.c_str(), dir_fd_, name.c_str(), RENAME_NOREPLACE) == 0) return {};
  int err = errno;
  std::string_view operation = "rename";
  if (err == EINVAL || err == ENOSYS) {
    operation = "link";
    // No RENAME_NOREPLACE on this filesystem: link (which refuses a taken name), then unlink.
    if (::linkat(dir_fd_, temp_name_.c_str(), dir_fd_, name.c_str(), 0) == 0) {
      ::unlinkat(dir_fd_, temp_name_.c_str(), 0);
      return {};
    }
    err = errno;
  }
  if (err != EEXIST || !options_.replace) return failure(operation, err, name);
  if (::renameat(dir_fd_, temp_name_.c_str(), dir_fd_, name.c_str()) != 0) return failure("rename", errno, name);
  replaced_ = true;
  return {};
}

upload_commit_result upload_file::commit(std::string_view final_name) {
  if (error_) return {{}, error_};
  if (fd_ < 0) return {{}, failure("commit", EBADF, final_name)};
  if (!is_single_component(final_name)) return {{}, failure("commit", EINVAL, final_name)};
  if (!final_digest_) {
    if (options_.fsync && ::fsync(fd_) != 0) return {{}, failure("fsync", errno, temp_name_)};
    final_digest_ = digest_ ? digest_->finish() : std::array<char, 64>{};
    if (!final_digest_) return {{}, failure("commit", ENOMEM, temp_name_)};
  }
  const std::string name(final_name);
  replaced_ = false;
  if (upload_error e = anonymous() ? link_anonymous(name) : rename_named(name)) return {{}, std::move(e)};
  upload_commit_result out{{path_of(name), size_, *final_digest_, replaced_}, {}};
  // The name is in place now; a failed directory fsync only means it may not
  // survive a power loss, which the caller learns from the error.
  if (options_.fsync && ::fsync(dir_fd_) != 0) out.error = failure("fsync", errno, {});
  temp_name_.clear();
  close_all();
  return out;
}

void upload_file::abort() noexcept {
  if (fd_ >= 0 && !temp_name_.empty()) ::unlinkat(dir_fd_, temp_name_.c_str(), 0);
  temp_name_.clear();
  close_all();
}

void upload_file::close_all() noexcept {
  if (fd_ >= 0) ::close(fd_);
  if (dir_fd_ >= 0) ::close(dir_fd_);
  fd_ = -1;
  dir_fd_ = -1;
}

}  // namespace stet
