#pragma once
// Turning a URL path into a path relative to a static root that cannot name
// anything outside it. Purely lexical: symlinks are the opener's job
// (root_dir.hpp, openat2 with RESOLVE_BENEATH).

#include <cstddef>
#include <cstdint>
#include <memory_resource>
#include <string_view>

namespace stet::detail {

enum class path_verdict : std::uint8_t {
  ok,
  bad_request,  ///< malformed escape, "..", ".", empty segment, encoded '/', '\\', NUL, control byte
  hidden,       ///< a segment starts with '.' and dotfiles are hidden
  too_long,     ///< longer than max_relative_path
};

/// Longest relative path accepted, in bytes after decoding.
inline constexpr std::size_t max_relative_path = 2048;

struct clean_path {
  path_verdict verdict = path_verdict::ok;
  /// Decoded, relative (no leading '/'), no trailing '/'; "" is the root itself.
  /// Points into the input or into the arena.
  std::string_view path;
  /// The path ended in '/' (or was empty): an index file is asked for.
  bool directory = false;
};

/// Decodes the still-encoded `raw` path (one leading '/' ignored) into `arena`
/// (no copy when it has no '%') and checks every segment.
clean_path clean_url_path(std::string_view raw, std::pmr::memory_resource& arena, bool show_dotfiles);

/// The same segment checks for an already decoded relative path (static_url()).
clean_path check_relative_path(std::string_view decoded, bool show_dotfiles) noexcept;

}  // namespace stet::detail
