#pragma once
// The files behind one static_files: finding a clean relative path below the
// root, loading and caching its entry (bytes or descriptor, validators, MIME
// type), its precompressed siblings and its content hash. Knows nothing of
// requests or responses: the responder (static_files.cpp) asks, this answers.

#include <stet/static_files.hpp>

#include "static/background_hasher.hpp"
#include "static/content_hash.hpp"
#include "static/file_cache.hpp"
#include "static/file_entry.hpp"
#include "static/file_watch.hpp"
#include "static/root_dir.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace stet::detail {

class file_store {
 public:
  /// What a path leads to.
  enum class found : std::uint8_t { file, directory, missing, refused, failed };
  struct lookup_result {
    found kind = found::missing;
    std::shared_ptr<const file_entry> entry;  ///< set when kind == file
    cache_counters* counters = nullptr;       ///< the counters of the path's cache shard
  };

  /// `options` must outlive the store (static_files::impl owns both).
  /// @throws std::system_error when `root` is not an openable directory.
  file_store(std::string root, const static_options& options);

  /// The entry for `relative` (already cleaned: no "..", no empty segment),
  /// from the cache when its identity still matches the file, else loaded.
  /// Thread-safe; concurrent misses of one file load it once.
  lookup_result lookup(std::string_view relative);
  /// lookup(), with the built-in favicon for a missing "favicon.ico" (when enabled).
  lookup_result find(std::string_view relative);
  /// Which precompressed siblings (sibling_br, sibling_gz) of `relative` exist;
  /// probed at most once per second per entry.
  std::uint8_t siblings(std::string_view relative, const file_entry& entry) noexcept;
  /// The SHA-256 of `entry`'s content: computed inline for a file in memory,
  /// queued for the background hasher otherwise (nullopt until it is done).
  std::optional<content_digest> hash_of(const std::shared_ptr<const file_entry>& entry, cache_counters& counters);
  /// The compressed variant `c` (options.compression's levels) of `entry` (a file in memory that the cache
  /// holds under `relative`), made once per entry and coding: now, under the
  /// entry's lock, for files up to inline_variant_bytes; on the background
  /// thread for larger ones. Null until it is made, and for good when it is
  /// not worth keeping (no smaller than the file, no room in the budget, or
  /// the entry is not cached: a variant of an uncached entry would be made
  /// again per request). The variant lives as long as the entry.
  const file_variant* variant(std::string_view relative, const std::shared_ptr<const file_entry>& entry,
                              content_coding c, cache_counters& counters);
  /// Files larger than this get their variants off the calling (worker) thread.
  static constexpr std::uint64_t inline_variant_bytes = 128 * 1024;
  /// hash_of() the file at `relative_path` (checked as check_relative_path()
  /// does); nullopt for a path that is not a servable file.
  std::optional<content_digest> digest_of(std::string_view relative_path);
  /// Whether `relative` opens as a directory below the root (the stat of
  /// lookup() goes through the configured path, which may be a symlink).
  bool directory_below_root(std::string_view relative);
  /// Counts a request refused before lookup (a malformed path).
  void count_refused(std::string_view raw_relative_path) noexcept;
  void add_counters(static_stats& s) const noexcept {
    cache.add_counters(s);
    s.background_refused = hasher.refused();
  }

  detail::root_dir root;
  detail::file_cache cache;
  detail::background_hasher hasher;  // declared after `cache`: its jobs bump the cache's counters
  detail::file_watch watch;

 private:
  lookup_result load(const file_cache::key& k, const file_identity& want, cache_counters& counters);
  lookup_result read_entry(std::string_view relative, cache_counters& counters, bool& keep);
  void make_variant(const file_cache::key& k, const file_entry& e, content_coding c, cache_counters& counters);

  const static_options& options_;
  std::shared_ptr<const file_entry> favicon_;
  std::int64_t sibling_probe_ms_ = 1000;
  std::int64_t settle_ns_ = 0;
  std::string watched_root_;  // the configured root, absolute (file_watch walks it from "/")
};

}  // namespace stet::detail
