#include <stet/json.hpp>

#include "response/json/escape.hpp"
#include "response/json/shortest_double.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <concepts>
#include <cstring>

namespace stet::json {
namespace {

using namespace std::string_view_literals;

// Longest shortest-form double: "-2.2250738585072014e-308" (24), and ".0" may follow.
constexpr std::size_t max_floating_chars = 32;
static_assert(detail::shortest_double_room <= max_floating_chars);
constexpr std::size_t max_integer_chars = 20;  // "-9223372036854775808", "18446744073709551615"

// Shortest round-trip digits, but never integer-looking: readers would turn 1.0
// into an integer (and -0.0 into 0), and some reject integers past 2^64 outright
// (simdjson 3 does), which plain to_chars writes for 1.2345678901234568e+20.
// Fixed notation therefore gets ".0" up to 16 digits and becomes scientific above.
template <std::floating_point F>
char* write_floating(char* dst, F x) noexcept {
  if (!std::isfinite(x)) {
    std::memcpy(dst, "null", 4);
    return dst + 4;
  }
  constexpr std::ptrdiff_t max_fixed_digits = 16;
  char* end = nullptr;
  if constexpr (std::same_as<F, double>) {
    end = detail::write_shortest(dst, x);
  } else {
    end = std::to_chars(dst, dst + max_floating_chars, x).ptr;
  }
  for (const char* p = dst; p != end; ++p) {
    if (*p == '.' || *p == 'e') return end;
  }
  if (end - dst - (*dst == '-' ? 1 : 0) > max_fixed_digits) {
    return std::to_chars(dst, dst + max_floating_chars, x, std::chars_format::scientific).ptr;
  }
  std::memcpy(end, ".0", 2);
  return end + 2;
}

char* write_literal(char* dst, std::string_view text) noexcept {
  std::memcpy(dst, text.data(), text.size());
  return dst + text.size();
}

}  // namespace

std::string_view describe(errc e) noexcept {
  switch (e) {
    case errc::none: return "";
    case errc::depth_exceeded: return "nesting deeper than max_depth";
    case errc::key_expected: return "a value inside an object where a key was expected";
    case errc::unexpected_key: return "a key outside an object or after another key";
    case errc::value_expected: return "an object closed right after a key";
    case errc::unbalanced_end: return "an end that does not match the open container";
    case errc::multiple_roots: return "more than one top-level value";
  }
  return "unknown stet::json error";
}

writer::writer(std::string& out, writer_options limits) noexcept
    : out_(&out), max_depth_(std::min(limits.max_depth, max_depth_cap)) {}

writer::~writer() {
  try {
    flush();
  } catch (...) {
    // Destructors must not throw; losing the staged tail on allocation failure is documented.
  }
}

void writer::flush() {
  if (used_ == 0) return;
  out_->append(staging_.data(), used_);
  used_ = 0;
}

writer::slot writer::begin_value() {
  if (skip_ != 0) return slot::drop;
  switch (state_) {
    case state::root: state_ = state::done; return slot::first;
    case state::array_first: state_ = state::array_next; return slot::first;
    case state::array_next: return slot::next;
    case state::object_value: state_ = state::object_next; return slot::first;
    case state::object_first:
    case state::object_next: fail(errc::key_expected); return slot::drop;
    case state::done: fail(errc::multiple_roots); return slot::drop;
  }
  return slot::drop;
}

bool writer::open(bool is_object) {
  if (skip_ != 0) {
    ++skip_;
    return false;
  }
  const slot where = begin_value();
  // A dropped container takes its contents with it, so the output stays well-formed.
  if (where == slot::drop) {
    skip_ = 1;
    return false;
  }
  char* p = reserve(5);
  if (where == slot::next) *p++ = ',';
  if (depth_ >= max_depth_) {
    fail(errc::depth_exceeded);
    skip_ = 1;
    commit(write_literal(p, "null"sv));
    return false;
  }
  *p++ = is_object ? '{' : '[';
  const std::uint64_t bit = std::uint64_t{1} << (depth_ % 64);
  if (is_object) {
    kinds_[depth_ / 64] |= bit;
  } else {
    kinds_[depth_ / 64] &= ~bit;
  }
  ++depth_;
  state_ = is_object ? state::object_first : state::array_first;
  commit(p);
  return true;
}

void writer::close(bool is_object) {
  if (skip_ != 0) {
    --skip_;
    return;
  }
  const auto level_is_object = [this](std::size_t level) { return ((kinds_[level / 64] >> (level % 64)) & 1) != 0; };
  if (depth_ == 0 || level_is_object(depth_ - 1) != is_object) {
    fail(errc::unbalanced_end);
    return;
  }
  char* p = reserve(5);
  if (state_ == state::object_value) {
    fail(errc::value_expected);
    p = write_literal(p, "null"sv);
  }
  *p++ = is_object ? '}' : ']';
  --depth_;
  if (depth_ == 0) {
    state_ = state::done;
  } else {
    state_ = level_is_object(depth_ - 1) ? state::object_next : state::array_next;
  }
  commit(p);
}

writer& writer::begin_object() {
  open(true);
  return *this;
}

writer& writer::end_object() {
  close(true);
  return *this;
}

writer& writer::begin_array() {
  open(false);
  return *this;
}

writer& writer::end_array() {
  close(false);
  return *this;
}

// Short text is escaped straight into the staging buffer; long text is appended to
// the string in runs, so a big string is copied once rather than staged first.
void writer::quoted(slot where, std::string_view text, bool is_key) {
  if (text.size() <= detail::short_string) {
    char* p = reserve(detail::escape_bound(text.size()) + 4);
    if (where == slot::next) *p++ = ',';
    *p++ = '"';
    char* const copied = detail::copy_if_short_and_plain(p, text);
    p = copied != nullptr ? copied : detail::escape_to(p, text);
    *p++ = '"';
    if (is_key) *p++ = ':';
    commit(p);
    return;
  }
  char* p = reserve(2);
  if (where == slot::next) *p++ = ',';
  *p++ = '"';
  used_ = static_cast<std::size_t>(p - staging_.data());
  flush();
  detail::escape_runs(*out_, text);
  out_->append(is_key ? "\":"sv : "\""sv);
}

writer& writer::key(std::string_view name) {
  if (skip_ != 0) return *this;
  slot where = slot::first;
  if (state_ == state::object_next) {
    where = slot::next;
  } else if (state_ != state::object_first) {
    fail(errc::unexpected_key);
    return *this;
  }
  state_ = state::object_value;
  quoted(where, name, true);
  return *this;
}

writer& writer::string(std::string_view text) {
  if (const slot where = begin_value(); where != slot::drop) quoted(where, text, false);
  return *this;
}

writer& writer::signed_number(std::int64_t n) {
  if (const slot where = begin_value(); where != slot::drop) {
    char* p = reserve(max_integer_chars + 1);
    if (where == slot::next) *p++ = ',';
    commit(std::to_chars(p, p + max_integer_chars, n).ptr);
  }
  return *this;
}

writer& writer::unsigned_number(std::uint64_t n) {
  if (const slot where = begin_value(); where != slot::drop) {
    char* p = reserve(max_integer_chars + 1);
    if (where == slot::next) *p++ = ',';
    commit(std::to_chars(p, p + max_integer_chars, n).ptr);
  }
  return *this;
}

writer& writer::double_number(double x) {
  if (const slot where = begin_value(); where != slot::drop) {
    char* p = reserve(max_floating_chars + 1);
    if (where == slot::next) *p++ = ',';
    commit(write_floating(p, x));
  }
  return *this;
}

writer& writer::float_number(float x) {
  if (const slot where = begin_value(); where != slot::drop) {
    char* p = reserve(max_floating_chars + 1);
    if (where == slot::next) *p++ = ',';
    commit(write_floating(p, x));
  }
  return *this;
}

writer& writer::boolean(bool b) {
  if (const slot where = begin_value(); where != slot::drop) {
    char* p = reserve(6);
    if (where == slot::next) *p++ = ',';
    commit(write_literal(p, b ? "true"sv : "false"sv));
  }
  return *this;
}

writer& writer::null() {
  if (const slot where = begin_value(); where != slot::drop) {
    char* p = reserve(5);
    if (where == slot::next) *p++ = ',';
    commit(write_literal(p, "null"sv));
  }
  return *this;
}

writer& writer::raw(std::string_view json) {
  if (const slot where = begin_value(); where != slot::drop) {
    char* p = reserve(1);
    if (where == slot::next) *p++ = ',';
    used_ = static_cast<std::size_t>(p - staging_.data());
    if (json.size() <= staging_size - used_) {
      commit(write_literal(p, json));
    } else {
      flush();
      out_->append(json);
    }
  }
  return *this;
}

}  // namespace stet::json
