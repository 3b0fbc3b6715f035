#pragma once
// One version of one file, as the static file cache holds it.

#include <stet/compression.hpp>
#include <stet/response.hpp>

#include "static/content_hash.hpp"

#include <sys/stat.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <ctime>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

namespace stet::detail {

/// What "the same file" means: any change to any member is a new version. ctime
/// is included because mtime can be set back (touch -d, rsync -t, tar x) while
/// the bytes differ; ctime cannot be set by a user.
struct file_identity {
  std::uint64_t dev = 0;
  std::uint64_t ino = 0;
  std::uint64_t size = 0;
  std::int64_t mtime_ns = 0;
  std::int64_t ctime_ns = 0;

  static file_identity of(const struct ::stat& st) noexcept {
    return {static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino),
            static_cast<std::uint64_t>(st.st_size), st.st_mtim.tv_sec * 1'000'000'000LL + st.st_mtim.tv_nsec,
            st.st_ctim.tv_sec * 1'000'000'000LL + st.st_ctim.tv_nsec};
  }
  friend bool operator==(const file_identity&, const file_identity&) = default;
};

/// A strong ETag for `id`: 16 hex digits of a 64-bit mix of the whole identity
/// (inode numbers stay private), quoted.
std::array<char, 18> make_etag(const file_identity& id) noexcept;

/// A compressed variant of one file version (static_options::compression).
struct file_variant {
  std::shared_ptr<const std::string> bytes;  ///< the coded body
  std::string etag;                          ///< the entry's ETag with the coding inside the quotes
};

/// Everything a response for one file version needs, computed once per version.
/// Published as shared_ptr<const file_entry>: immutable except the members
/// marked mutable, which are atomics or guarded by hash_mutex.
struct file_entry {
  file_identity id;
  std::shared_ptr<const std::string> bytes;  ///< contents (small files); null for large ones
  std::shared_ptr<const file_source> file;   ///< open descriptor (large files); null for small ones
  std::string_view content_type;             ///< static storage (mime_table)
  std::array<char, 18> etag{};
  std::array<char, 29> last_modified{};
  std::time_t mtime = 0;
  bool dated = true;  ///< has a Last-Modified (false for the built-in favicon)
  /// A compressed variant may be made of it: it is in memory and the mount's
  /// compression settings take its size and type. Decided once per version
  /// (the settings are fixed at start), not per request.
  bool compressible = false;
  std::uint64_t charge = 0;  ///< bytes counted against the cache budget

  /// Monotonic ms of the last stat that confirmed `id` (revalidate_interval).
  mutable std::atomic<std::int64_t> validated_ms{0};
  /// The file_watch epoch read before the last read or stat that confirmed
  /// `id`; a hit while the epoch still equals it needs no stat. Never equal
  /// to an epoch (file_watch::unwatched) unless the whole path is watched.
  mutable std::atomic<std::uint64_t> watch_stamp{~std::uint64_t{0}};
  bool watched = false;  ///< the whole path was watched when the entry was loaded
  /// Which precompressed siblings exist (bit 0: .br, bit 1: .gz), and when that was looked at.
  mutable std::atomic<std::uint8_t> siblings{0};
  mutable std::atomic<std::int64_t> siblings_probed_ms{0};

  /// The content hash: computed at most once per entry (so once per version).
  mutable std::mutex hash_mutex;
  mutable std::atomic<bool> hash_ready{false};
  mutable bool hash_queued = false;  ///< guarded by hash_mutex: handed to the background hasher
  mutable content_digest hash{};     ///< written under hash_mutex before hash_ready is set

  /// Compressed variants, indexed by coding - 1, made at most once per entry:
  /// written under variant_mutex, then published by the coding's bit in
  /// variants_ready, after which they are read without the lock and never change.
  mutable std::mutex variant_mutex;
  mutable std::atomic<std::uint8_t> variants_ready{0};
  mutable std::uint8_t variants_tried = 0;  ///< guarded by variant_mutex: made, queued or not worth keeping
  mutable std::array<std::shared_ptr<const file_variant>, compressed_coding_count> variants;
  /// Bytes of the published variants, counted against the cache budget on top
  /// of `charge`; changed only under the lock of the cache shard holding the entry.
  mutable std::atomic<std::uint64_t> variant_charge{0};

  /// What the entry costs the cache budget now.
  std::uint64_t total_charge() const noexcept { return charge + variant_charge.load(std::memory_order_relaxed); }
  std::string_view etag_view() const noexcept { return {etag.data(), etag.size()}; }
  std::string_view last_modified_view() const noexcept { return {last_modified.data(), last_modified.size()}; }
};

inline constexpr std::uint8_t sibling_br = 1;
inline constexpr std::uint8_t sibling_gz = 2;

}  // namespace stet::detail
