#include <stet/json_body.hpp>

#include <stet/error.hpp>
#include <stet/json.hpp>

#include "counters/memo_stats.hpp"
#include "request/arena.hpp"

#include <simdjson.h>

#include <memory>
#include <new>

namespace stet {

// What request::json() accepts can be echoed with a default writer.
static_assert(json_max_depth == json::writer_options{}.max_depth);

namespace detail {

// Copies simdjson's DOM into stet's own tree in the request arena. The DOM lives
// in the thread's parser and is overwritten by the next parse on this thread;
// the copy lives exactly as long as the request and keeps simdjson out of
// stet's public headers.
struct json_access {
  static json_value convert(simdjson::dom::element e, std::pmr::memory_resource& arena) {
    json_value out;
    switch (e.type()) {
      case simdjson::dom::element_type::NULL_VALUE: break;
      case simdjson::dom::element_type::BOOL:
        out.type_ = json_type::boolean;
        out.v_.boolean = e.get_bool().value_unsafe();
        break;
      case simdjson::dom::element_type::INT64:
        out.type_ = json_type::integer;
        out.v_.integer = e.get_int64().value_unsafe();
        break;
      case simdjson::dom::element_type::UINT64:
        out.type_ = json_type::unsigned_integer;
        out.v_.unsigned_integer = e.get_uint64().value_unsafe();
        break;
      case simdjson::dom::element_type::DOUBLE:
        out.type_ = json_type::floating;
        out.v_.floating = e.get_double().value_unsafe();
        break;
      case simdjson::dom::element_type::STRING: {
        const std::string_view s = arena_copy(arena, e.get_string().value_unsafe());
        out.type_ = json_type::string;
        out.v_.string = s.data();
        out.size_ = static_cast<std::uint32_t>(s.size());
        break;
      }
      case simdjson::dom::element_type::ARRAY: return convert_array(e.get_array().value_unsafe(), arena);
      case simdjson::dom::element_type::OBJECT: return convert_object(e.get_object().value_unsafe(), arena);
    }
    return out;
  }

  // scope_count() saturates at 2^24 - 1; count by walking beyond that.
  template <typename Container>
  static std::size_t count(const Container& c) noexcept {
    const std::size_t n = c.size();
    if (n < 0xffffff) return n;
    return static_cast<std::size_t>(std::distance(c.begin(), c.end()));
  }

  static json_value convert_array(simdjson::dom::array a, std::pmr::memory_resource& arena) {
    const std::size_t n = count(a);
    json_value* items = arena_array<json_value>(arena, n);
    std::size_t i = 0;
    for (simdjson::dom::element child : a) items[i++] = convert(child, arena);
    json_value out;
    out.type_ = json_type::array;
    out.size_ = static_cast<std::uint32_t>(n);
    out.v_.items = items;
    return out;
  }

  static json_value convert_object(simdjson::dom::object o, std::pmr::memory_resource& arena) {
    const std::size_t n = count(o);
    json_member* members = arena_array<json_member>(arena, n);
    std::size_t i = 0;
    for (const simdjson::dom::key_value_pair& kv : o) {
      members[i].key = arena_copy(arena, kv.key);
      members[i].value = convert(kv.value, arena);
      ++i;
    }
    json_value out;
    out.type_ = json_type::object;
    out.size_ = static_cast<std::uint32_t>(n);
    out.v_.members = members;
    return out;
  }

  static const char* string_of(const json_value& v) noexcept { return v.v_.string; }
  static const json_value* items_of(const json_value& v) noexcept { return v.v_.items; }
  static const json_member* members_of(const json_value& v) noexcept { return v.v_.members; }
  static bool boolean_of(const json_value& v) noexcept { return v.v_.boolean; }
  static std::int64_t integer_of(const json_value& v) noexcept { return v.v_.integer; }
  static std::uint64_t unsigned_of(const json_value& v) noexcept { return v.v_.unsigned_integer; }
  static double floating_of(const json_value& v) noexcept { return v.v_.floating; }
};

}  // namespace detail

namespace {

using access = detail::json_access;

// Parsers above this capacity are dropped after use rather than kept per
// thread: one large body must not pin megabytes in every worker for good.
constexpr std::size_t retained_parser_bytes = 256 * 1024;
constexpr std::size_t initial_parser_bytes = 16 * 1024;

// One DOM parser per thread, reused: its tape, string buffer and padded input
// copy are allocated once and grow only for larger documents.
std::unique_ptr<simdjson::dom::parser>& thread_parser_slot() {
  thread_local std::unique_ptr<simdjson::dom::parser> parser;
  return parser;
}

simdjson::dom::parser& thread_parser() {
  std::unique_ptr<simdjson::dom::parser>& slot = thread_parser_slot();
  if (!slot) {
    slot = std::make_unique<simdjson::dom::parser>();
    if (slot->allocate(initial_parser_bytes, json_max_depth) != simdjson::SUCCESS) throw std::bad_alloc();
  }
  return *slot;
}

}  // namespace

std::optional<bool> json_value::as_bool() const noexcept {
  if (type_ != json_type::boolean) return std::nullopt;
  return access::boolean_of(*this);
}

std::optional<std::int64_t> json_value::as_int64() const noexcept {
  if (type_ == json_type::integer) return access::integer_of(*this);
  return std::nullopt;  // unsigned_integer is above INT64_MAX by construction
}

std::optional<std::uint64_t> json_value::as_uint64() const noexcept {
  if (type_ == json_type::unsigned_integer) return access::unsigned_of(*this);
  if (type_ == json_type::integer && access::integer_of(*this) >= 0) {
    return static_cast<std::uint64_t>(access::integer_of(*this));
  }
  return std::nullopt;
}

std::optional<double> json_value::as_double() const noexcept {
  switch (type_) {
    case json_type::integer: return static_cast<double>(access::integer_of(*this));
    case json_type::unsigned_integer: return static_cast<double>(access::unsigned_of(*this));
    case json_type::floating: return access::floating_of(*this);
    default: return std::nullopt;
  }
}

std::optional<std::string_view> json_value::as_string() const noexcept {
  if (type_ != json_type::string) return std::nullopt;
  return std::string_view(access::string_of(*this), size_);
}

std::span<const json_value> json_value::items() const noexcept {
  if (type_ != json_type::array) return {};
  return {access::items_of(*this), size_};
}

std::span<const json_member> json_value::members() const noexcept {
  if (type_ != json_type::object) return {};
  return {access::members_of(*this), size_};
}

const json_value* json_value::find(std::string_view key) const noexcept {
  for (const json_member& m : members()) {
    if (m.key == key) return &m.value;
  }
  return nullptr;
}

stet::status json_result::status() const noexcept {
  if (!error_) return status::ok;
  if (error_.category() == error_category()) return http_status(static_cast<stet::error>(error_.value()));
  return status::bad_request;
}

json_result parse_json(std::string_view text, std::pmr::memory_resource& arena, std::size_t max_bytes) {
  if (text.size() > max_bytes) return json_result(error::body_too_large, "JSON body over the size limit");
  if (text.empty()) return json_result(error::invalid_json, "empty body");
  ++detail::this_thread_memo_stats().json_parses;
  simdjson::dom::parser& parser = thread_parser();
  const simdjson::simdjson_result<simdjson::dom::element> parsed = parser.parse(text.data(), text.size());
  if (parsed.error() == simdjson::MEMALLOC) throw std::bad_alloc();
  if (parsed.error() == simdjson::CAPACITY) return json_result(error::body_too_large, "JSON body over 4 GiB");
  if (parsed.error()) return json_result(error::invalid_json, simdjson::error_message(parsed.error()));
  const json_value root = access::convert(parsed.value_unsafe(), arena);
  if (text.size() > retained_parser_bytes) thread_parser_slot().reset();
  return json_result(detail::arena_new<json_value>(arena, root));
}

void to_json(json::writer& w, const json_value& value) {
  switch (value.type()) {
    case json_type::null: w.null(); return;
    case json_type::boolean: w.boolean(*value.as_bool()); return;
    case json_type::integer: w.number(*value.as_int64()); return;
    case json_type::unsigned_integer: w.number(*value.as_uint64()); return;
    case json_type::floating: w.number(*value.as_double()); return;
    case json_type::string: w.string(*value.as_string()); return;
    case json_type::array:
      w.begin_array();
      for (const json_value& item : value.items()) to_json(w, item);
      w.end_array();
      return;
    case json_type::object:
      w.begin_object();
      for (const json_member& m : value.members()) {
        w.key(m.key);
        to_json(w, m.value);
      }
      w.end_object();
      return;
  }
}

}  // namespace stet
