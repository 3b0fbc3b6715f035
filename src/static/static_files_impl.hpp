#pragma once
// The static file responder's state: its options and the file store it asks,
// visible to its tests through static_files_access.

#include <stet/static_files.hpp>

#include "static/file_store.hpp"

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
  detail::file_store store;  // declared after `options`, which it refers to
  // What static_url() puts before the path: the first mount()'s prefix, unless
  // the deprecated static_options::url_prefix was set (then that, always).
  // Written by mount() while the router is built, before the workers read it.
  std::string url_prefix;
  bool url_prefix_fixed;

 private:
  using found = detail::file_store::found;
  using lookup_result = detail::file_store::lookup_result;

  std::string_view cache_control_for(const request& req, const lookup_result& file);
  // The Cache-Control options, the only fields of a file response a user
  // writes: checked once here (an invalid one is left out, empty), so file
  // responses append every field as it is.
  struct checked_cache_control {
    std::string_view normal;
    std::string_view immutable;
    std::string_view stale_hash;
  };
  static checked_cache_control check(const static_options& o) noexcept;
  const checked_cache_control cache_control_;
  response serve(const request& req, std::string_view relative, const lookup_result& file);
  response serve_index(const request& req, std::string_view directory);
  response redirect_to_directory(const request& req, std::string_view relative);
};

namespace detail {

/// For tests: the cache and root behind a static_files.
struct static_files_access {
  static file_cache& cache(static_files& s) noexcept { return s.impl_->store.cache; }
  static root_dir& root(static_files& s) noexcept { return s.impl_->store.root; }
  /// mount(): `base` (no trailing '/') becomes static_url()'s prefix, unless
  /// an earlier mount or the deprecated url_prefix said it already.
  static void mounted_at(static_files& s, std::string_view base) {
    if (s.impl_->url_prefix_fixed) return;
    s.impl_->url_prefix = std::string(base) + '/';
    s.impl_->url_prefix_fixed = true;
  }

  static file_watch& watch(static_files& s) noexcept { return s.impl_->store.watch; }
};

}  // namespace detail
}  // namespace stet
