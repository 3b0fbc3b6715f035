#include "response/error_pages.hpp"

#include <stet/request.hpp>

#include "request/field_lines.hpp"
#include "response/response_access.hpp"

#include <fmt/format.h>

#include <array>
#include <memory>
#include <string>

namespace stet::detail {
namespace {

constexpr unsigned first_status = 400;
constexpr unsigned status_span = 200;  // 400..599
// stet::error values are small and dense; anything past this is rendered per call.
constexpr int error_span = 64;

constexpr std::array<std::string_view, error_format_count> content_types = {
    "text/plain; charset=utf-8", "text/html; charset=utf-8", "application/json"};

using shared_body = std::shared_ptr<const std::string>;

std::string render(unsigned code, std::string_view reason, error_format format) {
  switch (format) {
    case error_format::text: return fmt::format("{}\n", reason);
    case error_format::html:
      return fmt::format(
          "<!DOCTYPE html>\n<html><head><title>{0} {1}</title></head><body><h1>{0} {1}</h1></body></html>\n", code,
          reason);
    case error_format::json: return fmt::format(R"({{"error":"{}","status":{}}})", reason, code);
  }
  return {};
}

// Every 4xx/5xx in every format, built on first use (a thread-safe static);
// reason phrases are plain ASCII, so neither HTML nor JSON needs escaping.
struct status_pages {
  std::array<std::array<shared_body, error_format_count>, status_span> bodies;

  status_pages() {
    for (unsigned i = 0; i < status_span; ++i) {
      const unsigned code = first_status + i;
      std::string_view reason = reason_phrase(static_cast<status>(code));
      if (reason.empty()) reason = code < 500 ? "Client Error" : "Server Error";
      for (std::size_t f = 0; f < error_format_count; ++f) {
        bodies[i][f] = std::make_shared<const std::string>(render(code, reason, static_cast<error_format>(f)));
      }
    }
  }
};

const status_pages& pages() {
  static const status_pages instance;
  return instance;
}

std::string render_error(error e) {
  return fmt::format("{}: {}\n", reason_phrase(http_status(e)), make_error_code(e).message());
}

const std::array<shared_body, error_span>& error_bodies() {
  static const auto instance = [] {
    std::array<shared_body, error_span> bodies;
    for (int i = 0; i < error_span; ++i) bodies[i] = std::make_shared<const std::string>(render_error(error(i)));
    return bodies;
  }();
  return instance;
}

response with_body(status s, std::string_view content_type, shared_body body) {
  response r(s);
  response_access::append_trusted_field(r, "Content-Type", content_type);
  r.set_shared_body(std::move(body));
  return r;
}

}  // namespace

response error_page(status s, error_format format) {
  const unsigned code = to_int(s);
  const auto f = static_cast<std::size_t>(format);
  if (code < first_status || code >= first_status + status_span) {
    return with_body(s, content_types[f], std::make_shared<const std::string>(render(code, reason_phrase(s), format)));
  }
  response r = with_body(s, content_types[f], pages().bodies[code - first_status][f]);
  // The body depends on Accept: a cache keeping this answer must key on it.
  response_access::append_trusted_field(r, "Vary", "Accept");
  return r;
}

response error_page(status s, const request& req) {
  return error_page(s, preferred_error_format(combined_field(req, "accept").value_or(std::string_view())));
}

response error_page(error e) {
  const int value = static_cast<int>(e);
  const status s = http_status(e);
  if (value < 0 || value >= error_span) {
    return with_body(s, content_types[0], std::make_shared<const std::string>(render_error(e)));
  }
  return with_body(s, content_types[0], error_bodies()[static_cast<std::size_t>(value)]);
}

}  // namespace stet::detail
