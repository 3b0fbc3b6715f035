#include "static/file_store.hpp"

#include "counters/counter_add.hpp"
#include "static/favicon.hpp"
#include "static/mime_table.hpp"
#include "static/safe_path.hpp"

#include "http/date_cache.hpp"
#include "response/compress/policy.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <ctime>
#include <filesystem>

namespace stet::detail {
namespace {

std::int64_t monotonic_ms() noexcept {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1'000'000;
}

std::int64_t realtime_ns() noexcept {
  timespec ts{};
  ::clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

// The whole file at the current size, or nullopt when it ended early (it shrank
// while we read: the caller re-stats and tries again).
std::optional<std::string> read_all(int fd, std::uint64_t size) {
  std::string bytes(size, '\0');
  std::uint64_t done = 0;
  while (done < size) {
    const ssize_t n = ::pread(fd, bytes.data() + done, size - done, static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return std::nullopt;
    done += static_cast<std::uint64_t>(n);
  }
  return bytes;
}

bool worth_compressing(const file_entry& e, const compression_options& s) noexcept {
  return s.enabled && e.bytes && e.id.size >= s.min_bytes && media_type_listed(e.content_type, s.media_types);
}

std::shared_ptr<const file_entry> make_favicon_entry(const compression_options& s) {
  auto e = std::make_shared<file_entry>();
  auto bytes = std::make_shared<const std::string>(make_default_favicon());
  const auto digest = hash_bytes(*bytes);
  e->id.size = bytes->size();
  e->etag.front() = '"';
  e->etag.back() = '"';
  if (digest) std::copy(digest->begin(), digest->end(), e->etag.begin() + 1);
  e->content_type = mime_type("favicon.ico");
  e->dated = false;
  e->bytes = std::move(bytes);
  e->compressible = worth_compressing(*e, s);
  return e;
}

}  // namespace

file_store::file_store(std::string root_path, const static_options& options)
    : root(std::move(root_path)),
      cache(options.cache_budget, options.max_cache_entries),
      // A file and its directories per entry, and the directories above the root.
      watch(options.watch_files ? 2 * options.max_cache_entries + 64 : 0),
      options_(options) {
  std::error_code ec;
  watched_root_ = std::filesystem::absolute(root.configured(), ec).lexically_normal().string();
  if (options_.default_favicon) favicon_ = make_favicon_entry(options_.compression);
  sibling_probe_ms_ = std::max<std::int64_t>(1000, options_.revalidate_interval.count());
  settle_ns_ = std::chrono::duration_cast<std::chrono::nanoseconds>(options_.settle_time).count();
}

// The hit path: one lookup under the shard lock and, unless no watched event
// touched anything since the entry was confirmed (file_watch.hpp), one stat of
// the path through the configured root. The entry is keyed on the relative
// path; its identity (dev, ino, size, mtime, ctime) decides whether it still
// describes the file.
file_store::lookup_result file_store::lookup(std::string_view relative) {
  const file_cache::key k = file_cache::make_key(relative);
  cache_counters& counters = cache.counters(k);
  std::shared_ptr<const file_entry> entry = cache.find(k);
  if (entry && watch.unchanged_since(entry->watch_stamp.load(std::memory_order_relaxed))) {
    shared_add(counters.hits);
    return {found::file, std::move(entry), &counters};
  }
  const std::int64_t now = monotonic_ms();
  const auto interval = options_.revalidate_interval.count();
  if (entry && interval > 0 && now - entry->validated_ms.load(std::memory_order_relaxed) < interval) {
    shared_add(counters.hits);
    return {found::file, std::move(entry), &counters};
  }
  path_buffer path;
  if (!join_path(root.configured(), relative, {}, path)) return {found::missing, nullptr, &counters};
  const std::uint64_t stamp = watch.epoch();  // before the stat: an event after it un-stamps the entry
  struct ::stat st {};
  if (::stat(path.data(), &st) != 0) {
    const int error = errno;
    if (entry) {
      cache.erase(k, entry.get());
      shared_add(counters.invalidations);
    }
    if (error == ENOENT || error == ENOTDIR || error == ENAMETOOLONG) return {found::missing, nullptr, &counters};
    if (error == EACCES || error == ELOOP) return {found::refused, nullptr, &counters};
    return {found::failed, nullptr, &counters};
  }
  if (!S_ISREG(st.st_mode)) {
    if (entry) {
      cache.erase(k, entry.get());
      shared_add(counters.invalidations);
    }
    if (S_ISDIR(st.st_mode)) return {found::directory, nullptr, &counters};
    shared_add(counters.refused);
    return {found::refused, nullptr, &counters};
  }
  const file_identity id = file_identity::of(st);
  if (entry && entry->id == id) {
    entry->validated_ms.store(now, std::memory_order_relaxed);
    // Watched again (the kernel answers for an existing watch at once): a
    // directory on the path may be a new inode that only the stat has seen.
    if (entry->watched && watch.watch(watched_root_, relative)) {
      entry->watch_stamp.store(stamp, std::memory_order_relaxed);
    }
    shared_add(counters.hits);
    shared_add(counters.revalidations);
    return {found::file, std::move(entry), &counters};
  }
  if (entry) shared_add(counters.invalidations);
  shared_add(counters.misses);
  lookup_result loaded = load(k, id, counters);
  // The path no longer leads to a servable file (now a refused symlink, say):
  // the old version must not keep its place, or its budget share.
  if (entry && loaded.kind != found::file) cache.erase(k, entry.get());
  return loaded;
}

file_store::lookup_result file_store::load(const file_cache::key& k, const file_identity& want,
                                           cache_counters& counters) {
  file_cache::claim claim = cache.claim_load(k, want);
  if (!claim.owner) return {found::file, std::move(claim.ready), &counters};
  lookup_result result;
  bool keep = false;
  try {
    result = read_entry(k.path, counters, keep);
  } catch (...) {
    cache.finish_load(k, nullptr, false);
    throw;
  }
  cache.finish_load(k, result.entry, keep);
  return result;
}

// Small files are read here, inline on the calling worker: at most
// max_cached_file_bytes bytes, once per file version (concurrent askers wait in
// claim_load), normally from the page cache. Large files are never read on a
// worker: the entry keeps the open descriptor for sendfile.
file_store::lookup_result file_store::read_entry(std::string_view relative, cache_counters& counters, bool& keep) {
  const auto dir = root.current();
  if (!dir) return {found::missing, nullptr, &counters};
  // The epoch first, then the watches, then the read: an edit after the
  // stamp bumps the epoch (watched already) or is what the read sees.
  const std::uint64_t stamp = watch.epoch();
  const bool watched = watch.watch(watched_root_, relative);
  const int fd =
      root.open_below(*dir, relative, O_RDONLY | O_NONBLOCK | O_NOCTTY, options_.allow_symlinks_outside_root);
  if (fd < 0) {
    const int error = -fd;
    if (error == ENOENT || error == ENOTDIR || error == ENAMETOOLONG) return {found::missing, nullptr, &counters};
    if (error == EMFILE || error == ENFILE || error == ENOMEM || error == EIO)
      return {found::failed, nullptr, &counters};
    shared_add(counters.refused);  // EXDEV (escape), ELOOP, EACCES, ...
    return {found::refused, nullptr, &counters};
  }
  auto source = std::make_shared<const file_source>(fd);
  struct ::stat st {};
  if (::fstat(fd, &st) != 0) return {found::failed, nullptr, &counters};
  if (S_ISDIR(st.st_mode)) return {found::directory, nullptr, &counters};
  if (!S_ISREG(st.st_mode)) {
    shared_add(counters.refused);
    return {found::refused, nullptr, &counters};
  }
  auto entry = std::make_shared<file_entry>();
  if (static_cast<std::uint64_t>(st.st_size) <= options_.max_cached_file_bytes) {
    std::optional<std::string> bytes;
    for (int attempt = 0; attempt < 3 && !bytes; ++attempt) {
      bytes = read_all(fd, static_cast<std::uint64_t>(st.st_size));
      struct ::stat after {};
      if (::fstat(fd, &after) != 0) return {found::failed, nullptr, &counters};
      if (bytes && file_identity::of(after) != file_identity::of(st)) bytes.reset();  // written while we read
      st = after;
    }
    if (!bytes) return {found::failed, nullptr, &counters};
    shared_add(counters.reads);
    entry->charge = bytes->size();
    entry->bytes = std::make_shared<const std::string>(std::move(*bytes));
  } else {
    entry->file = std::move(source);
  }
  entry->id = file_identity::of(st);
  entry->etag = make_etag(entry->id);
  entry->mtime = st.st_mtim.tv_sec;
  format_http_date(entry->mtime, entry->last_modified);
  entry->content_type = mime_type(relative);
  entry->compressible = worth_compressing(*entry, options_.compression);
  entry->validated_ms.store(monotonic_ms(), std::memory_order_relaxed);
  entry->watched = watched;
  if (watched) entry->watch_stamp.store(stamp, std::memory_order_relaxed);
  // A file changed within settle_time may still be mid-write within one
  // timestamp tick, where a second write leaves the identity unchanged: serve
  // what we read, but do not let the cache vouch for it.
  keep = realtime_ns() - entry->id.ctime_ns >= settle_ns_;
  if (options_.precompressed) siblings(relative, *entry);
  return {found::file, std::move(entry), &counters};
}

// Which .br/.gz siblings exist, looked at on load and then at most once per
// sibling_probe_ms_ (not per request: most files have none, and a stat per
// absent sibling per request would double the hit path's syscalls).
std::uint8_t file_store::siblings(std::string_view relative, const file_entry& entry) noexcept {
  const std::int64_t now = monotonic_ms();
  std::int64_t probed = entry.siblings_probed_ms.load(std::memory_order_relaxed);
  if (probed != 0 && now - probed < sibling_probe_ms_) return entry.siblings.load(std::memory_order_relaxed);
  if (!entry.siblings_probed_ms.compare_exchange_strong(probed, now, std::memory_order_relaxed)) {
    return entry.siblings.load(std::memory_order_relaxed);
  }
  std::uint8_t bits = 0;
  path_buffer path;
  struct ::stat st {};
  if (join_path(root.configured(), relative, ".br", path) && ::stat(path.data(), &st) == 0 && S_ISREG(st.st_mode)) {
    bits |= sibling_br;
  }
  if (join_path(root.configured(), relative, ".gz", path) && ::stat(path.data(), &st) == 0 && S_ISREG(st.st_mode)) {
    bits |= sibling_gz;
  }
  entry.siblings.store(bits, std::memory_order_relaxed);
  return bits;
}

std::optional<content_digest> file_store::hash_of(const std::shared_ptr<const file_entry>& entry,
                                                  cache_counters& counters) {
  if (entry->hash_ready.load(std::memory_order_acquire)) {
    shared_add(counters.hash_hits);
    return entry->hash;
  }
  std::unique_lock lock(entry->hash_mutex);
  if (entry->hash_ready.load(std::memory_order_relaxed)) {
    shared_add(counters.hash_hits);
    return entry->hash;
  }
  if (entry->bytes) {
    // In memory already (<= max_cached_file_bytes): hashed inline, under the
    // entry's lock, so concurrent askers wait for one computation.
    const auto digest = hash_bytes(*entry->bytes);
    if (!digest) return std::nullopt;
    entry->hash = *digest;
    entry->hash_ready.store(true, std::memory_order_release);
    shared_add(counters.hashes);
    return digest;
  }
  if (!entry->hash_queued) {
    entry->hash_queued = true;
    lock.unlock();
    if (!hasher.submit(entry, counters.hashes)) {
      lock.lock();
      entry->hash_queued = false;  // the queue was full: a later request asks again
    }
  }
  return std::nullopt;
}

// The site's favicon.ico when present, else the built-in one (when enabled).
file_store::lookup_result file_store::find(std::string_view relative) {
  lookup_result r = lookup(relative);
  if (r.kind == found::missing && favicon_ && relative == "favicon.ico") {
    r.kind = found::file;
    r.entry = favicon_;
  }
  return r;
}

std::optional<content_digest> file_store::digest_of(std::string_view relative_path) {
  const clean_path path = check_relative_path(relative_path, options_.show_dotfiles);
  if (path.verdict != path_verdict::ok || path.directory) return std::nullopt;
  const lookup_result r = find(path.path);
  if (r.kind != found::file) return std::nullopt;
  return hash_of(r.entry, *r.counters);
}

bool file_store::directory_below_root(std::string_view relative) {
  const auto dir = root.current();
  const int fd = dir ? root.open_below(*dir, relative, O_PATH | O_DIRECTORY, options_.allow_symlinks_outside_root) : -1;
  if (fd < 0) return false;
  ::close(fd);
  return true;
}

void file_store::count_refused(std::string_view raw_relative_path) noexcept {
  shared_add(cache.counters(file_cache::make_key(raw_relative_path)).refused);
}

}  // namespace stet::detail
