#pragma once
// RFC 9110 section 13 (conditional requests) and 14 (ranges) as pure
// functions: the static handler states facts about the file, this layer
// decides 200, 206, 304, 412 or 416. No I/O, no allocation.

#include <array>
#include <cstdint>
#include <ctime>
#include <optional>
#include <string_view>

namespace stet::detail {

/// What the handler knows about the representation it would send.
struct representation_facts {
  std::string_view etag;                     ///< strong entity-tag, quotes included
  std::optional<std::time_t> last_modified;  ///< whole seconds; absent: date conditions are ignored
  std::uint64_t size = 0;
};

/// The request fields that matter; nullopt when absent.
struct request_conditions {
  bool head = false;  ///< HEAD: Range is ignored (defined for GET only)
  std::optional<std::string_view> if_match;
  std::optional<std::string_view> if_none_match;
  std::optional<std::string_view> if_modified_since;
  std::optional<std::string_view> if_unmodified_since;
  std::optional<std::string_view> range;
  std::optional<std::string_view> if_range;
};

enum class outcome : std::uint8_t {
  full,                   ///< 200, the whole representation
  partial,                ///< 206, [offset, offset + length)
  not_modified,           ///< 304
  precondition_failed,    ///< 412
  range_not_satisfiable,  ///< 416, with Content-Range: bytes */size
};

struct decision {
  outcome kind = outcome::full;
  std::uint64_t offset = 0;
  std::uint64_t length = 0;  ///< bytes to send (the size for `full`)
};

/// The precedence of RFC 9110 section 13.2.2: If-Match, else If-Unmodified-Since
/// (412); If-None-Match (304), else If-Modified-Since (304); then Range with
/// If-Range. A multi-range request is answered with the whole representation.
decision evaluate(const request_conditions& conditions, const representation_facts& facts) noexcept;

/// Whether the If-Match / If-None-Match `list` (entity-tags or "*") names `etag`.
/// `weak`: compare opaque-tags ignoring W/ (If-None-Match); otherwise both must
/// be strong and equal (If-Match, If-Range).
bool etag_list_matches(std::string_view list, std::string_view etag, bool weak) noexcept;

/// IMF-fixdate, and the obsolete RFC 850 and asctime forms (RFC 9110 5.6.7).
std::optional<std::time_t> parse_http_date(std::string_view text) noexcept;

enum class range_kind : std::uint8_t {
  ignored,        ///< no usable single range: absent, invalid, another unit or several ranges
  satisfiable,    ///< [offset, offset + length)
  unsatisfiable,  ///< 416
};

struct byte_range {
  range_kind kind = range_kind::ignored;
  std::uint64_t offset = 0;
  std::uint64_t length = 0;
};

/// One `bytes=a-b`, `bytes=a-` or `bytes=-n` against a representation of `size` bytes.
byte_range parse_range(std::string_view value, std::uint64_t size) noexcept;

/// Content-Range for `d` (a 206: "bytes first-last/size"; a 416: "bytes */size"), written into `out`.
std::string_view content_range(const decision& d, std::uint64_t size, std::array<char, 72>& out) noexcept;

/// Whether an If-Range `value` (entity-tag or date) still describes the representation.
bool if_range_holds(std::string_view value, const representation_facts& facts) noexcept;

}  // namespace stet::detail
