#include <stet/static_files.hpp>

#include "static/content_hash.hpp"
#include "static/encoding.hpp"
#include "static/favicon.hpp"
#include "static/file_response.hpp"
#include "static/mime_table.hpp"
#include "static/safe_path.hpp"
#include "static/static_files_impl.hpp"

#include "http/date_cache.hpp"
#include "http/percent.hpp"
#include "response/error_pages.hpp"
#include "response/redirect.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <ctime>

namespace stet {
namespace {

using detail::cache_counters;
using detail::file_cache;
using detail::file_entry;
using detail::file_identity;

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

void bump(std::atomic<std::uint64_t>& counter) noexcept { counter.fetch_add(1, std::memory_order_relaxed); }

// `_hash` values are hex, so no decoding is needed to compare them.
std::optional<std::string_view> query_param(std::string_view query, std::string_view name) noexcept {
  while (!query.empty()) {
    const std::size_t amp = query.find('&');
    const std::string_view pair = query.substr(0, amp);
    const std::size_t eq = pair.find('=');
    if (pair.substr(0, eq) == name) return eq == std::string_view::npos ? std::string_view() : pair.substr(eq + 1);
    if (amp == std::string_view::npos) break;
    query.remove_prefix(amp + 1);
  }
  return std::nullopt;
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

std::string_view concat(std::pmr::memory_resource& arena, std::string_view a, std::string_view b,
                        std::string_view c = {}) {
  auto* p = static_cast<char*>(arena.allocate(a.size() + b.size() + c.size(), 1));
  a.copy(p, a.size());
  b.copy(p + a.size(), b.size());
  c.copy(p + a.size() + b.size(), c.size());
  return {p, a.size() + b.size() + c.size()};
}

std::shared_ptr<const file_entry> make_favicon_entry() {
  auto e = std::make_shared<file_entry>();
  auto bytes = std::make_shared<const std::string>(detail::make_default_favicon());
  const auto digest = detail::hash_bytes(*bytes);
  e->id.size = bytes->size();
  e->etag.front() = '"';
  e->etag.back() = '"';
  if (digest) std::copy(digest->begin(), digest->end(), e->etag.begin() + 1);
  e->content_type = detail::mime_type("favicon.ico");
  e->dated = false;
  e->bytes = std::move(bytes);
  return e;
}

}  // namespace

static_files::impl::impl(std::string root_path, static_options o)
    : options(std::move(o)), root(std::move(root_path)), cache(options.cache_budget, options.max_cache_entries) {
  if (options.default_favicon) favicon_ = make_favicon_entry();
  sibling_probe_ms_ = std::max<std::int64_t>(1000, options.revalidate_interval.count());
  settle_ns_ = std::chrono::duration_cast<std::chrono::nanoseconds>(options.settle_time).count();
}

// The hit path: one lookup under the shard lock, one stat of the path through
// the configured root. The entry is keyed on the relative path; its identity
// (dev, ino, size, mtime, ctime) decides whether it still describes the file.
static_files::impl::lookup_result static_files::impl::lookup(std::string_view relative) {
  const file_cache::key k = file_cache::make_key(relative);
  cache_counters& counters = cache.counters(k);
  std::shared_ptr<const file_entry> entry = cache.find(k);
  const std::int64_t now = monotonic_ms();
  const auto interval = options.revalidate_interval.count();
  if (entry && interval > 0 && now - entry->validated_ms.load(std::memory_order_relaxed) < interval) {
    bump(counters.hits);
    return {found::file, std::move(entry), &counters};
  }
  detail::path_buffer path;
  if (!detail::join_path(root.configured(), relative, {}, path)) return {found::missing, nullptr, &counters};
  struct ::stat st {};
  if (::stat(path.data(), &st) != 0) {
    const int error = errno;
    if (entry) {
      cache.erase(k, entry.get());
      bump(counters.invalidations);
    }
    if (error == ENOENT || error == ENOTDIR || error == ENAMETOOLONG) return {found::missing, nullptr, &counters};
    if (error == EACCES || error == ELOOP) return {found::refused, nullptr, &counters};
    return {found::failed, nullptr, &counters};
  }
  if (!S_ISREG(st.st_mode)) {
    if (entry) {
      cache.erase(k, entry.get());
      bump(counters.invalidations);
    }
    if (S_ISDIR(st.st_mode)) return {found::directory, nullptr, &counters};
    bump(counters.refused);
    return {found::refused, nullptr, &counters};
  }
  const file_identity id = file_identity::of(st);
  if (entry && entry->id == id) {
    entry->validated_ms.store(now, std::memory_order_relaxed);
    bump(counters.hits);
    bump(counters.revalidations);
    return {found::file, std::move(entry), &counters};
  }
  if (entry) bump(counters.invalidations);
  bump(counters.misses);
  lookup_result loaded = load(k, id, counters);
  // The path no longer leads to a servable file (now a refused symlink, say):
  // the old version must not keep its place, or its budget share.
  if (entry && loaded.kind != found::file) cache.erase(k, entry.get());
  return loaded;
}

static_files::impl::lookup_result static_files::impl::load(const file_cache::key& k, const file_identity& want,
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
// max_cached_file_size bytes, once per file version (concurrent askers wait in
// claim_load), normally from the page cache. Large files are never read on a
// worker: the entry keeps the open descriptor for sendfile.
static_files::impl::lookup_result static_files::impl::read_entry(std::string_view relative, cache_counters& counters,
                                                                 bool& keep) {
  const auto dir = root.current();
  if (!dir) return {found::missing, nullptr, &counters};
  const int fd = root.open_below(*dir, relative, O_RDONLY | O_NONBLOCK | O_NOCTTY, options.allow_symlinks_outside_root);
  if (fd < 0) {
    const int error = -fd;
    if (error == ENOENT || error == ENOTDIR || error == ENAMETOOLONG) return {found::missing, nullptr, &counters};
    if (error == EMFILE || error == ENFILE || error == ENOMEM || error == EIO)
      return {found::failed, nullptr, &counters};
    bump(counters.refused);  // EXDEV (escape), ELOOP, EACCES, ...
    return {found::refused, nullptr, &counters};
  }
  auto source = std::make_shared<const file_source>(fd);
  struct ::stat st {};
  if (::fstat(fd, &st) != 0) return {found::failed, nullptr, &counters};
  if (S_ISDIR(st.st_mode)) return {found::directory, nullptr, &counters};
  if (!S_ISREG(st.st_mode)) {
    bump(counters.refused);
    return {found::refused, nullptr, &counters};
  }
  auto entry = std::make_shared<file_entry>();
  if (static_cast<std::uint64_t>(st.st_size) <= options.max_cached_file_size) {
    std::optional<std::string> bytes;
    for (int attempt = 0; attempt < 3 && !bytes; ++attempt) {
      bytes = read_all(fd, static_cast<std::uint64_t>(st.st_size));
      struct ::stat after {};
      if (::fstat(fd, &after) != 0) return {found::failed, nullptr, &counters};
      if (bytes && file_identity::of(after) != file_identity::of(st)) bytes.reset();  // written while we read
      st = after;
    }
    if (!bytes) return {found::failed, nullptr, &counters};
    bump(counters.reads);
    entry->charge = bytes->size();
    entry->bytes = std::make_shared<const std::string>(std::move(*bytes));
  } else {
    entry->file = std::move(source);
  }
  entry->id = file_identity::of(st);
  entry->etag = detail::make_etag(entry->id);
  entry->mtime = st.st_mtim.tv_sec;
  detail::format_http_date(entry->mtime, entry->last_modified);
  entry->content_type = detail::mime_type(relative);
  entry->validated_ms.store(monotonic_ms(), std::memory_order_relaxed);
  // A file changed within settle_time may still be mid-write within one
  // timestamp tick, where a second write leaves the identity unchanged: serve
  // what we read, but do not let the cache vouch for it.
  keep = realtime_ns() - entry->id.ctime_ns >= settle_ns_;
  if (options.precompressed) siblings(relative, *entry);
  return {found::file, std::move(entry), &counters};
}

// Which .br/.gz siblings exist, looked at on load and then at most once per
// sibling_probe_ms_ (not per request: most files have none, and a stat per
// absent sibling per request would double the hit path's syscalls).
std::uint8_t static_files::impl::siblings(std::string_view relative, const file_entry& entry) noexcept {
  const std::int64_t now = monotonic_ms();
  std::int64_t probed = entry.siblings_probed_ms.load(std::memory_order_relaxed);
  if (probed != 0 && now - probed < sibling_probe_ms_) return entry.siblings.load(std::memory_order_relaxed);
  if (!entry.siblings_probed_ms.compare_exchange_strong(probed, now, std::memory_order_relaxed)) {
    return entry.siblings.load(std::memory_order_relaxed);
  }
  std::uint8_t bits = 0;
  detail::path_buffer path;
  struct ::stat st {};
  if (detail::join_path(root.configured(), relative, ".br", path) && ::stat(path.data(), &st) == 0 &&
      S_ISREG(st.st_mode)) {
    bits |= detail::sibling_br;
  }
  if (detail::join_path(root.configured(), relative, ".gz", path) && ::stat(path.data(), &st) == 0 &&
      S_ISREG(st.st_mode)) {
    bits |= detail::sibling_gz;
  }
  entry.siblings.store(bits, std::memory_order_relaxed);
  return bits;
}

std::optional<detail::content_digest> static_files::impl::hash_of(const std::shared_ptr<const file_entry>& entry,
                                                                  cache_counters& counters) {
  if (entry->hash_ready.load(std::memory_order_acquire)) {
    bump(counters.hash_hits);
    return entry->hash;
  }
  std::unique_lock lock(entry->hash_mutex);
  if (entry->hash_ready.load(std::memory_order_relaxed)) {
    bump(counters.hash_hits);
    return entry->hash;
  }
  if (entry->bytes) {
    // In memory already (<= max_cached_file_size): hashed inline, under the
    // entry's lock, so concurrent askers wait for one computation.
    const auto digest = detail::hash_bytes(*entry->bytes);
    if (!digest) return std::nullopt;
    entry->hash = *digest;
    entry->hash_ready.store(true, std::memory_order_release);
    bump(counters.hashes);
    return digest;
  }
  if (!entry->hash_queued) {
    entry->hash_queued = true;
    lock.unlock();
    hasher.submit(entry, counters.hashes);
  }
  return std::nullopt;
}

std::string_view static_files::impl::cache_control_for(const request& req, const lookup_result& file) {
  const auto wanted = query_param(req.query_string(), "_hash");
  if (!wanted) return options.cache_control;
  const auto digest = hash_of(file.entry, *file.counters);
  return digest && *wanted == detail::to_view(*digest) ? options.immutable_cache_control
                                                       : options.stale_hash_cache_control;
}

response static_files::impl::serve(const request& req, std::string_view relative, const lookup_result& file) {
  const file_entry& original = *file.entry;
  const detail::static_request_fields fields = detail::read_static_fields(req);
  lookup_result variant;
  std::string_view coding;
  bool vary = false;
  if (options.precompressed && original.dated) {
    const std::uint8_t bits = siblings(relative, original);
    vary = bits != 0;
    const auto chosen = bits == 0 || !fields.accept_encoding
                            ? detail::content_coding::identity
                            : detail::choose_coding(*fields.accept_encoding, (bits & detail::sibling_br) != 0,
                                                    (bits & detail::sibling_gz) != 0);
    if (chosen != detail::content_coding::identity) {
      const bool br = chosen == detail::content_coding::br;
      variant = lookup(concat(req.arena(), relative, br ? ".br" : ".gz"));
      // A sibling older than the file was compressed from an earlier version.
      if (variant.kind == found::file && variant.entry->id.mtime_ns >= original.id.mtime_ns) {
        coding = br ? "br" : "gzip";
      } else {
        variant = {};
      }
    }
  }
  const file_entry& sent = variant.entry ? *variant.entry : original;
  const detail::decision d = detail::evaluate(fields.conditions, detail::facts_of(sent));
  if (d.kind == detail::outcome::not_modified) bump(file.counters->not_modified);
  if (d.kind == detail::outcome::partial) bump(file.counters->partial);
  return detail::build_file_response({sent, original.content_type, coding, vary, cache_control_for(req, file)}, d);
}

response static_files::impl::serve_index(const request& req, std::string_view directory) {
  for (const std::string& index : options.index_files) {
    const std::string_view relative =
        directory.empty() ? std::string_view(index) : concat(req.arena(), directory, "/", index);
    const lookup_result r = lookup(relative);
    if (r.kind == found::file) return serve(req, relative, r);
  }
  return detail::error_page(stet::status::not_found, req);
}

response static_files::impl::redirect_to_directory(const request& req, std::string_view relative) {
  // stat() said "directory" through the configured path; confirm it is one
  // below the root before telling the client it exists.
  const auto dir = root.current();
  const int fd = dir ? root.open_below(*dir, relative, O_PATH | O_DIRECTORY, options.allow_symlinks_outside_root) : -1;
  if (fd < 0) return detail::error_page(stet::status::not_found, req);
  ::close(fd);
  return detail::local_redirect(req, stet::status::moved_permanently, req.raw_path(), detail::add_slash::yes);
}

static_files::impl::lookup_result static_files::impl::favicon_fallback(lookup_result r, std::string_view relative) {
  if (r.kind == found::missing && favicon_ && relative == "favicon.ico") {
    r.kind = found::file;
    r.entry = favicon_;
  }
  return r;
}

response static_files::impl::respond(const request& req, std::string_view raw_relative_path) {
  if (req.method() != stet::method::get && req.method() != stet::method::head) {
    response res = detail::error_page(stet::status::method_not_allowed, req);
    res.add_header("Allow", "GET, HEAD");
    return res;
  }
  const detail::clean_path path = detail::clean_url_path(raw_relative_path, req.arena(), options.show_dotfiles);
  switch (path.verdict) {
    case detail::path_verdict::ok: break;
    case detail::path_verdict::bad_request:
      bump(cache.counters(file_cache::make_key(raw_relative_path)).refused);
      return detail::error_page(stet::status::bad_request, req);
    case detail::path_verdict::hidden: return detail::error_page(stet::status::not_found, req);
    case detail::path_verdict::too_long: return detail::error_page(stet::status::uri_too_long, req);
  }
  if (path.directory) return serve_index(req, path.path);
  const lookup_result r = favicon_fallback(lookup(path.path), path.path);
  switch (r.kind) {
    case found::file: return serve(req, path.path, r);
    case found::directory: return redirect_to_directory(req, path.path);
    case found::missing:
    case found::refused: return detail::error_page(stet::status::not_found, req);
    case found::failed: break;
  }
  return detail::error_page(stet::status::service_unavailable, req);
}

std::optional<detail::content_digest> static_files::impl::digest_of(std::string_view relative_path) {
  const detail::clean_path path = detail::check_relative_path(relative_path, options.show_dotfiles);
  if (path.verdict != detail::path_verdict::ok || path.directory) return std::nullopt;
  const lookup_result r = favicon_fallback(lookup(path.path), path.path);
  if (r.kind != found::file) return std::nullopt;
  return hash_of(r.entry, *r.counters);
}

std::optional<std::string> static_files::impl::content_hash(std::string_view relative_path) {
  const auto digest = digest_of(relative_path);
  if (!digest) return std::nullopt;
  return std::string(detail::to_view(*digest));
}

std::string static_files::impl::static_url(std::string_view relative_path) {
  const auto digest = digest_of(relative_path);
  if (!relative_path.empty() && relative_path.front() == '/' && options.url_prefix.ends_with('/')) {
    relative_path.remove_prefix(1);
  }
  std::string url;
  url.reserve(options.url_prefix.size() + relative_path.size() + 7 + 16 + 16);
  url += options.url_prefix;
  detail::append_percent_encoded(url, relative_path, detail::path_slashes::keep);
  if (digest) {
    url += "?_hash=";
    url += detail::to_view(*digest);
  }
  return url;
}

static_stats static_files::impl::stats() const noexcept {
  static_stats s;
  cache.add_counters(s);
  return s;
}

static_files::static_files(std::string root, static_options options)
    : impl_(std::make_unique<impl>(std::move(root), std::move(options))) {}
static_files::~static_files() = default;

response static_files::respond(const request& req, std::string_view raw_relative_path) {
  return impl_->respond(req, raw_relative_path);
}
std::string static_files::static_url(std::string_view relative_path) { return impl_->static_url(relative_path); }
std::optional<std::string> static_files::content_hash(std::string_view relative_path) {
  return impl_->content_hash(relative_path);
}
static_stats static_files::stats() const noexcept { return impl_->stats(); }
const static_options& static_files::options() const noexcept { return impl_->options; }
const std::string& static_files::root() const noexcept { return impl_->root.configured(); }

}  // namespace stet
