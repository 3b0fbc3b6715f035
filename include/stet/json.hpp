#pragma once
/// @file
/// stet::json: a JSON writer that appends to a caller's std::string, and
/// the serialisation of common C++ types (and of user types that opt in) through it.
///
/// Output policies (see docs/json.md):
/// - Strings: `"` and `\` are escaped; control characters below 0x20 are written as
///   `\b` `\t` `\n` `\f` `\r` or `\u00XX`; everything else, DEL and U+2028/U+2029 included, is
///   copied. Invalid UTF-8 is replaced, in the same pass, by U+FFFD: one per maximal
///   ill-formed subpart (Unicode 15, section 3.9, as WHATWG's decoder does).
/// - Integers: every integer type, exact, via std::to_chars.
/// - Doubles and floats: the shortest digits that read back to the same value
///   (std::to_chars), always with a fraction or exponent so readers keep them
///   floating point (`1.0`, `-0.0`, `1e+21`, `1.2345678901234568e+20`).
/// - NaN and infinities are written as `null`, decided per value while encoding.

#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <ranges>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace stet::json {

/// Why a writer's output differs from what it was asked to write. A writer keeps
/// the first error. Whatever the calls (raw() aside), its output is a prefix of
/// well-formed JSON, and well-formed once writer::complete() is true.
enum class errc : std::uint8_t {
  none = 0,
  depth_exceeded,  ///< a container would nest deeper than max_depth: written as null, contents dropped
  key_expected,    ///< a value inside an object where a key was due: dropped (a container with its contents)
  unexpected_key,  ///< a key outside an object, or right after another key: dropped
  value_expected,  ///< end_object right after a key: null written as that member's value
  unbalanced_end,  ///< an end_object/end_array that does not close the open container: ignored
  multiple_roots,  ///< a second top-level value: dropped
};

/// A short English description of `e` ("" for errc::none); the view is static.
std::string_view describe(errc e) noexcept;

/// Limits for one writer.
struct writer_options {
  /// Containers that may be open at once. The default is serde_json's read limit, so
  /// a stet document is readable by common parsers; values above writer::max_depth_cap
  /// are clamped to it.
  std::size_t max_depth = 128;
};

/// The earlier name (#26: option structs are named *_options): deprecated,
/// removed in the next release.
using settings [[deprecated("renamed writer_options")]] = writer_options;

/// Appends `text` to `out` with JSON string escapes and the invalid-UTF-8
/// replacement of this file's policy, without the surrounding quotes.
void escape(std::string& out, std::string_view text);

class writer;

namespace detail {

// Blocks unqualified lookup from finding a to_json in an enclosing namespace, so
// only argument-dependent lookup picks the user's overload.
void to_json() = delete;

template <typename T>
concept has_to_json = requires(writer& w, const T& v) {
  to_json(w, v);
};

template <typename T>
void call_to_json(writer& w, const T& v) {
  to_json(w, v);
}

template <typename T>
concept character = std::same_as<T, char> || std::same_as<T, wchar_t> || std::same_as<T, char8_t> ||
    std::same_as<T, char16_t> || std::same_as<T, char32_t>;

template <typename T>
concept integer = std::integral<T> && !std::same_as<T, bool> && !character<T>;

template <typename T>
concept string_like = std::convertible_to<const T&, std::string_view>;

template <typename T>
concept null_like = std::same_as<T, std::nullptr_t> || std::same_as<T, std::nullopt_t>;

template <typename T>
concept optional_like = requires {
  typename T::value_type;
}
&&std::same_as<T, std::optional<typename T::value_type>>;

template <typename T>
concept map_like = std::ranges::input_range<const T> && requires {
  typename T::key_type;
  typename T::mapped_type;
} && string_like<typename T::key_type>;

// A function rather than a concept because containers recurse into their element type.
template <typename T>
consteval bool is_serializable() {
  if constexpr (has_to_json<T> || std::same_as<T, bool> || null_like<T> || string_like<T> || integer<T> ||
                std::floating_point<T>) {
    return true;
  } else if constexpr (optional_like<T>) {
    return is_serializable<std::remove_cv_t<typename T::value_type>>();
  } else if constexpr (map_like<T>) {
    return is_serializable<std::remove_cv_t<typename T::mapped_type>>();
  } else if constexpr (std::ranges::input_range<const T>) {
    return is_serializable<std::remove_cvref_t<std::ranges::range_reference_t<const T>>>();
  } else {
    return false;
  }
}

}  // namespace detail

/// Types writer::value() can write: bool; std::nullptr_t and std::nullopt_t (null);
/// anything convertible to std::string_view (a null `const char*` is written as null);
/// every integer type except the character types; float, double, long double (as
/// double); std::optional of a serializable type; ranges with a string-like key_type
/// and a mapped_type (std::map, std::unordered_map, ...) as objects; other ranges
/// (std::vector, std::array, std::span, C arrays, ...) as arrays; and any type with
/// a `to_json(stet::json::writer&, const T&)` found by argument-dependent lookup,
/// which takes precedence over all of the above.
template <typename T>
concept serializable = detail::is_serializable<std::remove_cvref_t<T>>();

/// Writes one JSON value (usually an object or array) by appending to a
/// std::string, inserting commas and checking structure as it goes.
///
/// Calls chain: `w.begin_object().key("id").value(7).end_object();`. Misuse (a
/// value where a key is due, an unbalanced end, a second root) or nesting past
/// writer_options::max_depth never throws and never produces malformed output: the
/// offending call is dropped (a too-deep container becomes null), and error()
/// reports the first problem. Only allocation failure in the target string throws.
///
/// Small tokens are gathered in a 1 KiB staging buffer inside the writer and
/// appended to the string in blocks, which is most of its speed. The string is
/// up to date whenever the top-level value is complete, after flush() or
/// buffer(), and when the writer is destroyed; in between it may lack the tail.
/// @note `out` must outlive the writer, and is not to be changed other than
/// through buffer() while a value is being written. A writer is for one thread,
/// allocates nothing itself, and is about 1.2 KiB (fine on the stack).
class writer {
 public:
  /// The largest writer_options::max_depth honoured (simdjson's default read limit).
  static constexpr std::size_t max_depth_cap = 1024;

  /// A writer appending to `out`, whose current contents are kept.
  explicit writer(std::string& out, writer_options limits = {}) noexcept;
  /// Flushes what is staged (an allocation failure here loses the staged tail).
  ~writer();
  writer(const writer&) = delete;
  writer& operator=(const writer&) = delete;

  /// Opens an object (as a value: in an object, after key()).
  writer& begin_object();
  /// Closes the innermost open object.
  writer& end_object();
  /// Opens an array.
  writer& begin_array();
  /// Closes the innermost open array.
  writer& end_array();
  /// Writes an object member name; the next call writes its value.
  writer& key(std::string_view name);

  /// Writes a string value, escaped (see the file comment for the policy).
  writer& string(std::string_view text);
  /// Writes an integer, exactly.
  template <detail::integer I>
  writer& number(I n) {
    if constexpr (std::is_signed_v<I>) {
      return signed_number(static_cast<std::int64_t>(n));
    } else {
      return unsigned_number(static_cast<std::uint64_t>(n));
    }
  }
  /// Writes a floating-point number as its shortest round-trip form; NaN and
  /// infinities as null. A float is written with float precision (0.1f as 0.1).
  template <std::floating_point F>
  writer& number(F x) {
    if constexpr (std::same_as<F, float>) {
      return float_number(x);
    } else {
      return double_number(static_cast<double>(x));
    }
  }
  /// Writes true or false.
  writer& boolean(bool b);
  /// Writes null.
  writer& null();
  /// Writes `json` as one value, unchecked: for fragments serialised once and
  /// reused. The caller guarantees it is one well-formed JSON value.
  writer& raw(std::string_view json);

  /// Writes any serializable value (see the concept for the mapping).
  template <serializable T>
  writer& value(const T& v);
  /// key(name) then value(v).
  template <serializable T>
  writer& member(std::string_view name, const T& v) {
    key(name);
    return value(v);
  }
  /// begin_object(), `fill(*this)`, end_object(). `fill` is not called when the
  /// object is dropped for depth.
  template <std::invocable<writer&> Fill>
  writer& object(Fill&& fill) {
    begin_object();
    if (skip_ == 0) std::invoke(std::forward<Fill>(fill), *this);
    return end_object();
  }
  /// begin_array(), `fill(*this)`, end_array(); as object().
  template <std::invocable<writer&> Fill>
  writer& array(Fill&& fill) {
    begin_array();
    if (skip_ == 0) std::invoke(std::forward<Fill>(fill), *this);
    return end_array();
  }

  /// The first problem met, or errc::none.
  errc error() const noexcept { return error_; }
  /// No problem met so far.
  bool ok() const noexcept { return error_ == errc::none; }
  /// One whole top-level value has been written and every container closed.
  bool complete() const noexcept { return state_ == state::done && skip_ == 0; }
  /// Containers open now (dropped ones not counted).
  std::size_t depth() const noexcept { return depth_; }
  /// Appends what is staged to the string.
  void flush();
  /// The string being appended to, flushed first.
  std::string& buffer() {
    flush();
    return *out_;
  }

 private:
  enum class state : std::uint8_t { root, done, array_first, array_next, object_first, object_next, object_value };
  /// Where the next value goes: nowhere (dropped), first in its container, or after a comma.
  enum class slot : std::uint8_t { drop, first, next };

  static constexpr std::size_t staging_size = 1024;

  slot begin_value();
  bool open(bool is_object);
  void close(bool is_object);
  void fail(errc e) noexcept {
    if (error_ == errc::none) error_ = e;
  }
  /// Room for `n` (at most staging_size) bytes at the end of the staging buffer.
  char* reserve(std::size_t n) {
    if (staging_size - used_ < n) flush();
    return staging_.data() + used_;
  }
  /// Ends a reserve(): `end` is one past the last byte written.
  void commit(const char* end) {
    used_ = static_cast<std::size_t>(end - staging_.data());
    if (depth_ == 0) flush();
  }
  void quoted(slot where, std::string_view text, bool is_key);
  writer& signed_number(std::int64_t n);
  writer& unsigned_number(std::uint64_t n);
  writer& double_number(double x);
  writer& float_number(float x);

  std::string* out_;
  std::size_t max_depth_;
  std::size_t depth_ = 0;
  std::size_t skip_ = 0;  // open containers inside a dropped one
  std::size_t used_ = 0;  // bytes in staging_
  state state_ = state::root;
  errc error_ = errc::none;
  std::array<std::uint64_t, max_depth_cap / 64> kinds_;  // bit set: that level is an object; set by open() before use
  std::array<char, staging_size> staging_;               // left uninitialised: written before read
};

/// A callable that writes one value through a writer: `fill(stet::json::writer&)`.
template <typename F>
concept fill_function = std::invocable<F, writer&> && !serializable<F>;

template <serializable T>
writer& writer::value(const T& v) {
  using U = std::remove_cvref_t<T>;
  if (skip_ != 0) return *this;
  if constexpr (detail::has_to_json<U>) {
    detail::call_to_json(*this, v);
    return *this;
  } else if constexpr (std::same_as<U, bool>) {
    return boolean(v);
  } else if constexpr (detail::null_like<U>) {
    return null();
  } else if constexpr (detail::string_like<U>) {
    if constexpr (std::is_pointer_v<U>) {
      if (v == nullptr) return null();
    }
    return string(std::string_view(v));
  } else if constexpr (detail::integer<U> || std::floating_point<U>) {
    return number(v);
  } else if constexpr (detail::optional_like<U>) {
    return v.has_value() ? value(*v) : null();
  } else if constexpr (detail::map_like<U>) {
    begin_object();
    if (skip_ == 0) {
      for (const auto& [k, m] : v) member(std::string_view(k), m);
    }
    return end_object();
  } else {
    begin_array();
    if (skip_ == 0) {
      for (const auto& element : v) value(element);
    }
    return end_array();
  }
}

/// Appends `v` as JSON to `out`; returns the writer's error (errc::none on success).
template <serializable T>
errc append(std::string& out, const T& v, writer_options limits = {}) {
  writer w(out, limits);
  w.value(v);
  return w.error();
}

/// `v` as a new JSON string (convenience; allocates). Problems are handled as by
/// writer, and not reported: use append() or a writer to see them.
template <serializable T>
std::string to_string(const T& v, writer_options limits = {}) {
  std::string out;
  append(out, v, limits);
  return out;
}

}  // namespace stet::json
