#pragma once
// Real files in a scratch directory for the static file tests, and requests
// built in-process (no socket) for stet::static_files::respond().

#include <stet/request.hpp>

#include "request/request_access.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory_resource>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace stet::test {

/// A directory under /tmp, removed with everything in it on destruction.
class temp_tree {
 public:
  temp_tree() {
    std::string pattern = (std::filesystem::temp_directory_path() / "stet-static-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp");
    root_ = pattern;
  }
  ~temp_tree() {
    std::error_code ec;
    std::filesystem::remove_all(root_, ec);
  }
  temp_tree(const temp_tree&) = delete;
  temp_tree& operator=(const temp_tree&) = delete;

  const std::filesystem::path& root() const noexcept { return root_; }
  std::filesystem::path path(std::string_view relative) const { return root_ / relative; }

  /// Creates or truncates `relative` (parents created) and writes `bytes`.
  void write(std::string_view relative, std::string_view bytes) const {
    const auto p = path(relative);
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary | std::ios::trunc) << bytes;
  }
  /// Overwrites the start of an existing file without truncating it: same inode.
  void overwrite_in_place(std::string_view relative, std::string_view bytes) const {
    const int fd = ::open(path(relative).c_str(), O_WRONLY);
    if (fd < 0 || ::pwrite(fd, bytes.data(), bytes.size(), 0) != static_cast<ssize_t>(bytes.size())) {
      throw std::runtime_error("overwrite_in_place");
    }
    ::close(fd);
  }
  /// Writes `bytes` to a temporary name, then renames it over `relative`: a new inode.
  void replace(std::string_view relative, std::string_view bytes) const {
    write(std::string(relative) + ".tmp", bytes);
    std::filesystem::rename(path(std::string(relative) + ".tmp"), path(relative));
  }
  /// Sets the modification time to `seconds` since the epoch (+ `nanos`).
  void set_mtime(std::string_view relative, std::time_t seconds, long nanos = 0) const {
    const timespec times[2] = {{seconds, nanos}, {seconds, nanos}};
    if (::utimensat(AT_FDCWD, path(relative).c_str(), times, 0) != 0) throw std::runtime_error("utimensat");
  }
  struct ::stat stat(std::string_view relative) const {
    struct ::stat st {};
    if (::stat(path(relative).c_str(), &st) != 0) throw std::runtime_error("stat");
    return st;
  }

 private:
  std::filesystem::path root_;
};

/// Deterministic bytes of a given size.
inline std::string pattern_bytes(std::size_t size, unsigned seed = 0) {
  std::string s(size, '\0');
  for (std::size_t i = 0; i < size; ++i) s[i] = static_cast<char>('a' + (i * 7 + i / 251 + seed) % 26);
  return s;
}

/// A request built in-process: what the connection would hand a handler.
class fake_request {
 public:
  explicit fake_request(std::string target, std::string method = "GET") : method_(std::move(method)) {
    const std::size_t q = target.find('?');
    path_ = target.substr(0, q);
    query_ = q == std::string::npos ? "" : target.substr(q + 1);
    target_ = std::move(target);
  }
  fake_request& header(std::string name, std::string value) {
    storage_.emplace_back(std::move(name), std::move(value));
    return *this;
  }
  /// The request; valid while this object lives and is not modified.
  stet::request& get() {
    fields_.clear();
    for (const auto& [n, v] : storage_) fields_.push_back(stet::header_field{n, v});
    using stet::detail::request_access;
    const stet::method m = stet::parse_method(method_).value_or(stet::method::other);
    request_access::set_method(req_, m, method_);
    request_access::set_target(req_, target_, path_, path_, query_);
    request_access::set_fields(req_, fields_);
    request_access::set_arena(req_, arena_);
    return req_;
  }

 private:
  std::string method_;
  std::string target_;
  std::string path_;
  std::string query_;
  std::vector<std::pair<std::string, std::string>> storage_;
  std::vector<stet::header_field> fields_;
  std::pmr::monotonic_buffer_resource arena_;
  stet::request req_;
};

}  // namespace stet::test
