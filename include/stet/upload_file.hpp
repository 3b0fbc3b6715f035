#pragma once
/// @file
/// Streams an upload (a multipart part, or any request body) into a file
/// that appears under its final name only when complete, hashing it on the way.

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>

namespace stet {

namespace detail {
class sha256;
}

/// How an upload_file writes.
struct upload_file_options {
  /// fsync the file before it is linked under its name, and the directory
  /// after, so a committed upload survives a power loss. Off by default: it
  /// costs a disk flush per file.
  bool fsync = false;
  /// commit() onto an existing name replaces that file (atomically: readers
  /// see the old or the new one; upload_file_info::replaced says whether a
  /// file was there). Off by default: commit() refuses with EEXIST and the
  /// upload stays uncommitted, to commit under another name or abort.
  bool replace = false;
  /// Create the file with O_TMPFILE (no name until commit; nothing is left
  /// after a crash). When false, or when the filesystem does not support it,
  /// a hidden `.stet-upload-XXXXXXXXXXXXXXXX` file is created in the
  /// directory instead and renamed at commit (a crash may leave one behind).
  bool allow_tmpfile = true;
  /// Permission bits of the new file, before the umask.
  unsigned mode = 0600;
  /// Compute the file's SHA-256 while it is written (upload_file_info::sha256).
  /// Off saves about 1.2 ms of CPU per MB where nothing needs the digest;
  /// sha256_hex() is then empty.
  bool digest = true;
};

/// Why a file operation failed.
struct upload_error {
  /// The errno value (std::generic_category): ENOSPC, EEXIST, EACCES, ...;
  /// EINVAL for a final name that is not a single path component.
  std::error_code code;
  /// What failed: "open", "write", "fsync", "link", "rename" or "commit".
  std::string_view operation;
  /// The file or directory concerned.
  std::string path;

  /// True when there is an error.
  explicit operator bool() const noexcept { return static_cast<bool>(code); }
  /// "<operation> <path>: <strerror>", e.g. "write /srv/up/a.png: No space left on device".
  std::string message() const;
};

/// A committed upload.
struct upload_file_info {
  /// The directory joined with the final name.
  std::string path;
  std::uint64_t size = 0;  ///< bytes written
  /// SHA-256 of the bytes written, 64 lowercase hex digits; all NUL when
  /// upload_file_options::digest was off.
  std::array<char, 64> sha256{};
  /// With upload_file_options::replace: whether the name was taken and its
  /// file replaced (false: the name was new). The name is first linked as
  /// without `replace`, which refuses a taken name atomically, so of several
  /// commits racing onto a new name exactly one sees false.
  bool replaced = false;

  /// `sha256` as a string view; empty when no digest was computed.
  std::string_view sha256_hex() const noexcept {
    return sha256[0] == '\0' ? std::string_view() : std::string_view(sha256.data(), sha256.size());
  }
};

/// What commit() did: `info` when `error` is empty.
struct upload_commit_result {
  upload_file_info info;  ///< the committed file (when `error` is empty)
  upload_error error;     ///< why the commit failed
  /// True when the file was committed.
  explicit operator bool() const noexcept { return !error; }
};

/// A file being written in a directory chosen by the embedder: created
/// nameless (O_TMPFILE, or a hidden temporary name, see upload_file_options),
/// written piece by piece with SHA-256 computed on the fly (unless
/// upload_file_options::digest is off), then linked under
/// its final name by commit(), or removed by abort(). A half-written upload
/// never appears under its final name; an aborted or destroyed one leaves
/// nothing. Writes are blocking write(2) calls on the calling thread.
/// @note Not thread-safe; movable, not copyable.
class upload_file {
 public:
  /// Nothing open; error() is empty and write() refuses.
  upload_file() noexcept;
  /// Opens a new file in `directory`; check error() ("open": the directory
  /// cannot be opened, ENOSPC, EACCES, ...).
  explicit upload_file(std::string directory, upload_file_options options = {});
  /// Takes `other`'s file; `other` is left with nothing open.
  upload_file(upload_file&& other) noexcept;
  /// Aborts this one's uncommitted file, then takes `other`'s.
  upload_file& operator=(upload_file&& other) noexcept;
  upload_file(const upload_file&) = delete;
  upload_file& operator=(const upload_file&) = delete;
  /// Aborts an uncommitted file.
  ~upload_file();

  /// Appends `piece`. After an error (this or an earlier one, e.g. ENOSPC) the
  /// file stays uncommitted and writes are refused: abort() it.
  upload_error write(std::string_view piece);
  /// Links the file as `final_name` in the directory (a single path component:
  /// not empty, not "." or "..", no slash or NUL, at most 255 bytes; see
  /// sanitize_filename()), after an fsync if asked. On EEXIST (without
  /// `replace`) or another link failure the file stays open and uncommitted:
  /// commit again or abort(). Once linked the file is closed; if the
  /// directory's fsync then fails, `info` is filled and `error` says "fsync"
  /// (the file is in place but may not survive a power loss).
  upload_commit_result commit(std::string_view final_name);
  /// Closes and removes an uncommitted file; nothing after a commit. Idempotent.
  void abort() noexcept;

  /// Whether a file is open and not yet committed or aborted.
  bool is_open() const noexcept { return fd_ >= 0; }
  /// Bytes written so far.
  std::uint64_t size() const noexcept { return size_; }
  /// The first error of open() or write(); empty while there is none.
  const upload_error& error() const noexcept { return error_; }
  /// Whether O_TMPFILE is in use (false: a hidden temporary name).
  bool anonymous() const noexcept { return temp_name_.empty(); }

 private:
  std::string path_of(std::string_view name) const;
  upload_error failure(std::string_view operation, int err, std::string_view name) const;
  upload_error open_file();
  upload_error open_named();
  upload_error link_anonymous(const std::string& name);
  upload_error replace_anonymous(const std::string& name);
  upload_error rename_named(const std::string& name);
  void close_all() noexcept;

  std::string directory_;
  upload_file_options options_;
  int dir_fd_ = -1;
  int fd_ = -1;
  std::string temp_name_;  // empty with O_TMPFILE
  std::uint64_t size_ = 0;
  bool replaced_ = false;  // the last commit replaced a file (options_.replace)
  std::unique_ptr<detail::sha256> digest_;
  std::optional<std::array<char, 64>> final_digest_;
  upload_error error_;
};

}  // namespace stet
