#pragma once
// The static file responder's state, visible to its tests through
// static_files_access.

#include <stet/static_files.hpp>

#include "static/background_hasher.hpp"
#include "static/file_cache.hpp"
#include "static/root_dir.hpp"

#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace stet {

class static_files::impl {
 public:
  impl(std::string root, static_options options);

  response respond(const request& req, std::string_view raw_relative_path);
  std::string static_url(std::string_view relative_path);
  std::optional<std::string> content_hash(std::string_view relative_path);
  static_stats stats() const noexcept;

  const static_options options;
  detail::root_dir root;
  detail::file_cache cache;
  detail::background_hasher hasher;  // declared after `cache`: its jobs bump the cache's counters

 private:
  enum class found : std::uint8_t { file, directory, missing, refused, failed };
  struct lookup_result {
    found kind = found::missing;
    std::shared_ptr<const detail::file_entry> entry;
    detail::cache_counters* counters = nullptr;
  };

  lookup_result lookup(std::string_view relative);
  lookup_result load(const detail::file_cache::key& k, const detail::file_identity& want,
                     detail::cache_counters& counters);
  lookup_result read_entry(std::string_view relative, detail::cache_counters& counters, bool& keep);
  std::uint8_t siblings(std::string_view relative, const detail::file_entry& entry) noexcept;
  std::optional<detail::content_digest> digest_of(std::string_view relative_path);
  std::optional<detail::content_digest> hash_of(const std::shared_ptr<const detail::file_entry>& entry,
                                                detail::cache_counters& counters);
  std::string_view cache_control_for(const request& req, const lookup_result& file);
  response serve(const request& req, std::string_view relative, const lookup_result& file);
  response serve_index(const request& req, std::string_view directory);
  response redirect_to_directory(const request& req, std::string_view relative);
  /// The site's favicon.ico when present, else the built-in one (when enabled).
  lookup_result favicon_fallback(lookup_result found_result, std::string_view relative);

  std::shared_ptr<const detail::file_entry> favicon_;
  std::int64_t sibling_probe_ms_ = 1000;
  std::int64_t settle_ns_ = 0;
};

namespace detail {

/// For tests: the cache and root behind a static_files.
struct static_files_access {
  static file_cache& cache(static_files& s) noexcept { return s.impl_->cache; }
  static root_dir& root(static_files& s) noexcept { return s.impl_->root; }
};

}  // namespace detail
}  // namespace stet
