#pragma once
/// @file
/// stet::static_files: serves a directory tree, small files from a
/// stat-validated memory cache, large ones with sendfile(2).

#include <stet/compression.hpp>
#include <stet/detail/deprecated_field.hpp>
#include <stet/metrics.hpp>
#include <stet/request.hpp>
#include <stet/response.hpp>
#include <stet/router.hpp>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace stet {

namespace detail {
struct static_files_access;
}

/// How a static_files responder caches and answers. A plain aggregate; read
/// once at construction.
struct static_options {
  /// Files up to this size are read into memory and served from the cache;
  /// larger ones are sent with sendfile(2) from a cached open descriptor.
  std::uint64_t max_cached_file_bytes = 1024 * 1024;
  /// Total bytes of file contents the cache may hold (a running counter, LRU
  /// eviction). 0 disables caching of contents: every request reads the file.
  std::uint64_t cache_budget = 16 * 1024 * 1024;
  /// Entries the cache may hold, small and large (large ones each keep a descriptor open).
  std::size_t max_cache_entries = 4096;
  /// 0: every hit is validated with one stat(2). Otherwise a hit validated less
  /// than this long ago is served without a stat (nginx's open_file_cache_valid):
  /// edits then show up after at most this long.
  std::chrono::milliseconds revalidate_interval{0};
  /// Cached files are watched with inotify, so a hit whose file no event has
  /// touched is served without a stat(2); an edit reaches the cache when the
  /// watcher thread reads its event (it wakes for it), and a file, directory
  /// or file system that cannot be watched is checked with a stat on every
  /// hit as if this were false (docs/static-files.md).
  bool watch_files = true;
  /// A file whose inode changed less than this long before it was read is served
  /// but not cached: the read may have raced a writer within one timestamp tick.
  std::chrono::milliseconds settle_time{100};
  /// Cache-Control for plain URLs; empty sends none.
  std::string cache_control = "no-cache";
  /// Cache-Control when the URL's `_hash` matches the current content.
  std::string immutable_cache_control = "public, max-age=31536000, immutable";
  /// Cache-Control when the URL's `_hash` is stale (or not yet known for a large
  /// file): the current file is served, but no cache keeps it for long.
  std::string stale_hash_cache_control = "public, max-age=60";
  /// Tried in order for a path ending in '/'; none present: 404 (no listings).
  std::vector<std::string> index_files = {"index.html"};
  /// Serve files reached through symlinks that resolve outside the root.
  bool allow_symlinks_outside_root = false;
  /// Serve names starting with '.'; when false they are answered 404.
  bool show_dotfiles = false;
  /// Serve `name.br` / `name.gz` siblings when Accept-Encoding allows them.
  bool precompressed = true;
  /// Answer `favicon.ico` from a built-in icon when the site has none.
  bool default_favicon = true;
  /// Deprecated (#26: static_url() uses the prefix given to stet::mount(), the
  /// one place the URL prefix is said); removed in the next release. When set,
  /// static_url() puts it before the relative path instead.
  detail::deprecated_url_prefix url_prefix{};
  /// Compressed variants (off unless compression.enabled; stet-server copies
  /// its server_options::compression here). When no precompressed sibling is
  /// served, a file held in memory whose type is on compression.media_types and
  /// whose size is at least compression.min_bytes is sent in the coding the
  /// client prefers among compression.codings, compressed once per file
  /// version (inline up to 128 KiB, on a background thread above; identity
  /// until it is ready) and kept with the entry under cache_budget. Static
  /// answers are never compressed by the server's own compression step, so a
  /// cache hit never compresses. Files sent with sendfile get no variant.
  compression_options compression{};
};

/// Counters since construction; each is a sum over the cache's shards, read
/// without stopping the world (a snapshot, not a transaction).
struct static_stats {
  std::uint64_t hits = 0;            ///< answered from a cache entry whose identity still matched
  std::uint64_t misses = 0;          ///< no entry, or the entry's file had changed: opened (and read) again
  std::uint64_t revalidations = 0;   ///< hits checked with a stat (the others were inside revalidate_interval)
  std::uint64_t invalidations = 0;   ///< entries found changed or vanished on a stat
  std::uint64_t evictions = 0;       ///< entries dropped for the byte budget or the entry limit
  std::uint64_t reads = 0;           ///< files read whole into memory
  std::uint64_t hashes = 0;          ///< content hashes computed (SHA-256)
  std::uint64_t hash_hits = 0;       ///< content hashes asked for and already known for the file's identity
  std::uint64_t refused = 0;         ///< paths refused: traversal, encoded slash, symlink escape, non-regular file
  std::uint64_t not_modified = 0;    ///< 304 answers
  std::uint64_t partial = 0;         ///< 206 answers
  std::uint64_t bytes_cached = 0;    ///< bytes of file contents held now (the running counter)
  std::uint64_t entries = 0;         ///< entries held now
  std::uint64_t variant_hits = 0;    ///< answers sent from a compressed variant already made
  std::uint64_t variant_misses = 0;  ///< compressed variants made (once per file version and coding)
  std::uint64_t variant_bytes = 0;   ///< bytes of compressed variants held now (part of bytes_cached)
  /// Background jobs (a large file's hash, a larger file's compressed variant)
  /// refused because their bounded queue was full; a later request asks again.
  std::uint64_t background_refused = 0;
};

/// Serves the files below one root directory. One object is shared by every
/// worker thread: respond() and static_url() may be called concurrently.
/// Readers take one short per-shard lock on a hit; nothing on the hot path
/// serialises all workers.
///
/// What is cached, and what invalidates it: an entry is keyed on the decoded
/// path relative to the root and holds the file's identity (device, inode,
/// size, mtime ns, ctime ns) as of the read, its bytes (small files) or an open
/// descriptor (large files), ETag, Last-Modified and, once computed, the
/// content hash. Every hit stats the path through the configured root (which
/// follows a re-pointed root symlink); any difference in identity re-opens the
/// file, a vanished file is evicted and answered 404.
class static_files {
 public:
  /// Serves `root` (a directory; a symlink to one is followed, and re-followed
  /// when it is re-pointed). A relative `root` is made absolute against the
  /// current directory now.
  /// @throws std::system_error when `root` is not a directory that can be opened.
  explicit static_files(std::string root, static_options options = {});
  ~static_files();
  static_files(const static_files&) = delete;
  static_files& operator=(const static_files&) = delete;

  /// Answers `req` with the file at `raw_relative_path`: the request path after
  /// the mount prefix, still percent-encoded and without the query (e.g. a tail
  /// of req.raw_path()), so that an encoded slash can be told from a real one.
  /// One leading '/' is ignored; a trailing '/' asks for an index file. The
  /// query's `_hash` (req.query_string()) picks the Cache-Control. Errors are
  /// answers, not exceptions (only std::bad_alloc can escape):
  /// - 400: malformed escape, `..` or `.` segment, empty segment, encoded '/',
  ///   '\\' (raw or encoded), NUL or another control character; 414: too long;
  /// - 404: missing, hidden dotfile, not a regular file, symlink out of the root,
  ///   directory without an index file;
  /// - 301: a directory asked for without its trailing '/';
  /// - 405: a method other than GET or HEAD;
  /// - 503: the file could not be opened or read for a system reason (EMFILE, EIO);
  /// - 200/206/304/412/416 per RFC 9110 conditional and range rules.
  /// The response shares the cached bytes or descriptor; it stays valid after
  /// the entry is evicted.
  response respond(const request& req, std::string_view raw_relative_path);

  /// The prefix given to the first mount() of these files, '/', `relative_path`
  /// (percent-encoded as needed), `?_hash=` and
  /// the first 16 hex digits of the file's SHA-256 ("/static/" before the
  /// path when the files are not mounted). The hash is computed once
  /// per file identity; each call costs one stat and a lookup. `relative_path`
  /// is a plain (decoded) path. For a missing or refused path, and for a large
  /// file whose hash a background thread is still computing, the URL has no
  /// `_hash`.
  std::string static_url(std::string_view relative_path);

  /// The 16-hex content hash of the file now at `relative_path`, or nullopt
  /// (missing, refused, or a large file still being hashed in the background).
  std::optional<std::string> content_hash(std::string_view relative_path);

  /// A snapshot of the counters.
  static_stats stats() const noexcept;
  /// The options given at construction.
  const static_options& options() const noexcept;
  /// The root as configured (absolute, symlinks not resolved).
  const std::string& root() const noexcept;

  class impl;

 private:
  friend struct detail::static_files_access;
  std::unique_ptr<impl> impl_;
};

/// Serves `files` under the URL `prefix` (e.g. "/static"): GET and HEAD of
/// `prefix/<path>` go to files->respond() with the path still percent-encoded
/// (so that an encoded slash or dot-segment is refused, never decoded into a
/// traversal), and `prefix` itself is redirected to `prefix/`. Several mounts
/// may share one router. The first mount of `files` gives static_url() its
/// prefix, so the URL prefix is said once.
/// @note Mount before static_url() is called from more than one thread.
void mount(router& routes, std::string_view prefix, std::shared_ptr<static_files> files);

/// Reports `files`' counters through `m` (as stet_cache_* and stet_static_*
/// samples labelled cache="static"), read whenever the metrics are.
void report_metrics(metrics& m, std::shared_ptr<const static_files> files);

}  // namespace stet
