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
  /// hash_of() the file at `relative_path` (checked as check_relative_path()
  /// does); nullopt for a path that is not a servable file.
  std::optional<content_digest> digest_of(std::string_view relative_path);
  /// Whether `relative` opens as a directory below the root (the stat of
  /// lookup() goes through the configured path, which may be a symlink).
  bool directory_below_root(std::string_view relative);
  /// Counts a request refused before lookup (a malformed path).
  void count_refused(std::string_view raw_relative_path) noexcept;
  void add_counters(static_stats& s) const noexcept { cache.add_counters(s); }

  detail::root_dir root;
  detail::file_cache cache;
  detail::background_hasher hasher;  // declared after `cache`: its jobs bump the cache's counters

 private:
  lookup_result load(const file_cache::key& k, const file_identity& want, cache_counters& counters);
  lookup_result read_entry(std::string_view relative, cache_counters& counters, bool& keep);

  const static_options& options_;
  std::shared_ptr<const file_entry> favicon_;
  std::int64_t sibling_probe_ms_ = 1000;
  std::int64_t settle_ns_ = 0;
};

}  // namespace stet::detail
