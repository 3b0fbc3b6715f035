#pragma once
/// @file
/// JSON request bodies: an immutable tree in the request arena, parsed by simdjson.

#include <stet/status.hpp>

#include <cstddef>
#include <cstdint>
#include <memory_resource>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <system_error>

namespace stet {

namespace json {
class writer;  // <stet/json.hpp>: only the files that write JSON compile it (#26)
}  // namespace json

namespace detail {
struct json_access;
}

/// The kind of a json_value.
enum class json_type : std::uint8_t {
  null,
  boolean,
  integer,           ///< fits std::int64_t
  unsigned_integer,  ///< above INT64_MAX, fits std::uint64_t
  floating,          ///< has a fraction or exponent, or is beyond 64-bit integers
  string,
  array,
  object,
};

struct json_member;

/// One JSON value of a parsed document. Trivially copyable, 16 bytes; strings,
/// arrays and objects point into the request arena.
/// @note Valid while the request (its arena) is.
class json_value {
 public:
  /// null.
  constexpr json_value() noexcept = default;

  /// The kind of value.
  json_type type() const noexcept { return type_; }
  /// Whether it is null.
  bool is_null() const noexcept { return type_ == json_type::null; }
  /// Whether it is true or false.
  bool is_bool() const noexcept { return type_ == json_type::boolean; }
  /// Whether it is a number (integer, unsigned_integer or floating).
  bool is_number() const noexcept {
    return type_ == json_type::integer || type_ == json_type::unsigned_integer || type_ == json_type::floating;
  }
  /// Whether it is a string.
  bool is_string() const noexcept { return type_ == json_type::string; }
  /// Whether it is an array.
  bool is_array() const noexcept { return type_ == json_type::array; }
  /// Whether it is an object.
  bool is_object() const noexcept { return type_ == json_type::object; }

  /// The boolean; nullopt for other types.
  std::optional<bool> as_bool() const noexcept;
  /// An integer that fits std::int64_t; nullopt otherwise (floating included).
  std::optional<std::int64_t> as_int64() const noexcept;
  /// A non-negative integer; nullopt otherwise.
  std::optional<std::uint64_t> as_uint64() const noexcept;
  /// Any number as a double (large integers lose precision); nullopt otherwise.
  std::optional<double> as_double() const noexcept;
  /// The unescaped string (valid UTF-8, may contain NUL); nullopt for other types.
  std::optional<std::string_view> as_string() const noexcept;
  /// Array elements in order; empty for other types.
  std::span<const json_value> items() const noexcept;
  /// Object members in document order (duplicate keys kept); empty for other types.
  std::span<const json_member> members() const noexcept;
  /// The value of the first member named `key`; nullptr when absent or not an object.
  const json_value* find(std::string_view key) const noexcept;
  /// Elements of an array, members of an object, bytes of a string; 0 otherwise.
  std::size_t size() const noexcept { return size_; }

 private:
  friend struct detail::json_access;

  json_type type_ = json_type::null;
  std::uint32_t size_ = 0;
  union {
    bool boolean;
    std::int64_t integer;
    std::uint64_t unsigned_integer;
    double floating;
    const char* string;
    const json_value* items;
    const json_member* members;
  } v_{};
};

/// One member of a JSON object.
struct json_member {
  std::string_view key;  ///< unescaped
  json_value value;      ///< the member's value
};

/// Bodies larger than this are refused by request::json() (413) unless a limit is passed.
inline constexpr std::size_t default_json_max_bytes = 1024 * 1024;
/// Deepest nesting of arrays and objects accepted; deeper documents are
/// invalid_json. The JSON writer's default depth, so that whatever is accepted
/// can be written back out (echoed) with default settings (json::writer_options'
/// max_depth; json_body.cpp checks that the two agree).
inline constexpr std::size_t json_max_depth = 128;

/// A parsed JSON document, or why there is none. Never throws.
class json_result {
 public:
  /// A result holding the document rooted at `root` (kept by the caller).
  explicit json_result(const json_value* root) noexcept : root_(root) {}
  /// A failed result: `ec` is a stet::error, `detail` a static explanation.
  json_result(std::error_code ec, std::string_view detail) noexcept : error_(ec), detail_(detail) {}

  /// True when the body was parsed.
  explicit operator bool() const noexcept { return root_ != nullptr; }
  /// The root value; a null value on error.
  const json_value& value() const noexcept { return root_ != nullptr ? *root_ : null_; }
  /// value().
  const json_value& operator*() const noexcept { return value(); }
  /// &value().
  const json_value* operator->() const noexcept { return &value(); }
  /// error::invalid_json (400), error::unsupported_media_type (415) or
  /// error::body_too_large (413); empty on success.
  std::error_code error() const noexcept { return error_; }
  /// The status to answer the error with; 200 on success.
  stet::status status() const noexcept;
  /// A static, human-readable reason (e.g. simdjson's message); empty on success.
  std::string_view detail() const noexcept { return detail_; }

 private:
  static constexpr json_value null_{};
  const json_value* root_ = nullptr;
  std::error_code error_;
  std::string_view detail_;
};

/// Parses `text` with the calling thread's reused simdjson DOM parser and
/// copies the document into `arena` (uncached; request::json() is the memoised
/// form, which also checks the Content-Type). Errors: body_too_large when
/// `text` exceeds `max_bytes`; invalid_json for malformed JSON, invalid UTF-8,
/// nesting beyond json_max_depth, or empty text.
/// @throws std::bad_alloc when `arena` cannot allocate (never for bad input).
json_result parse_json(std::string_view text, std::pmr::memory_resource& arena,
                       std::size_t max_bytes = default_json_max_bytes);

/// Makes json_value serializable by stet::json::writer (found by argument-dependent
/// lookup): `stet::response::json(*req.json())` echoes a body back. Numbers keep
/// their kind (1.0 stays floating), object members their order and duplicates.
void to_json(json::writer& w, const json_value& value);

}  // namespace stet
